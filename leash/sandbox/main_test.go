package sandbox

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"
)

// testDial is the argv marker under which the test binary, run as a
// confined target, dials 127.0.0.1:<port> and reports the result.
const testDial = "__test-dial"

// testNoop makes the test binary exit at once: the cost of starting it.
const testNoop = "__test-noop"

// TestMain lets the test binary play two extra roles: the sandbox helper
// (as the real binary's hidden subcommand would) and a tiny TCP client.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case HelperCommand:
			os.Exit(Main(os.Args[2:]))
		case testDial:
			os.Exit(dialMain(os.Args[2:]))
		case testNoop:
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

func dialMain(args []string) int {
	port, _ := strconv.Atoi(args[0])
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 10*time.Second)
	if err != nil {
		fmt.Println("dial error:", err)
		return 3
	}
	c.Close()
	fmt.Println("dial ok")
	return 0
}
