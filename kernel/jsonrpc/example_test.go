package jsonrpc_test

import (
	"context"
	"fmt"
	"net"

	"github.com/shoal-sh/shoal/kernel/jsonrpc"
)

// A server with a typed method and a client calling it over an in-memory pipe; the server
// pushes a notification before answering, and the client's handler receives it.
func Example() {
	serverSide, clientSide := net.Pipe()

	type addParams struct{ A, B int }
	router := jsonrpc.NewRouter()
	router.Register("add", jsonrpc.Typed(func(ctx context.Context, _ *jsonrpc.Request, p addParams) (int, error) {
		if err := jsonrpc.ConnFromContext(ctx).Notify("event", map[string]string{"note": "adding"}); err != nil {
			return 0, err
		}
		return p.A + p.B, nil
	}))
	server := jsonrpc.NewConn(serverSide, serverSide, &jsonrpc.Options{Handler: router})
	go server.Run(context.Background())

	notes := make(chan string, 1)
	client := jsonrpc.NewConn(clientSide, clientSide, &jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			notes <- req.Method + " " + string(req.Params)
			return nil, nil
		}),
	})
	go client.Run(context.Background())
	defer client.Close()

	var sum int
	if err := client.Call(context.Background(), "add", addParams{A: 2, B: 3}, &sum); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println(<-notes)
	fmt.Println(sum)

	err := client.Call(context.Background(), "sub", nil, nil)
	fmt.Println(err)
	// Output:
	// event {"note":"adding"}
	// 5
	// jsonrpc error -32601: method not found
}
