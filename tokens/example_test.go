package tokens_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shoal-sh/shoal/tokens"
)

func Example() {
	dir, _ := os.MkdirTemp("", "tokens")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tokens.json")

	// The CLI side: mint a token; the secret is printed once.
	store, err := tokens.Open(path, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	secret, tok, _ := store.Create("agent:reviewer", tokens.DefaultProfile, nil, nil)
	fmt.Println(len(secret), tokens.CreatedLine("<id>"))

	// The kernel side: verify on attach; changes are picked up at once.
	v := tokens.NewVerifier(path, nil)
	got, err := v.Verify(secret)
	fmt.Println(got.Principal, err)
	store.Revoke(tok.ID)
	_, err = v.Verify(secret)
	fmt.Println(errors.Is(err, tokens.ErrAuth), err)
	// Output:
	// 43 created <id> (secret shown once)
	// agent:reviewer <nil>
	// true token rejected: token revoked
}
