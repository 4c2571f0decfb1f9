// Command shoal is the single multicall executable: the shell, the kernel,
// the MCP facade and the token tool. argv[0]'s basename picks the mode.
package main

import (
	"os"

	"github.com/shoal-sh/shoal/commands"
)

func main() {
	os.Exit(commands.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
