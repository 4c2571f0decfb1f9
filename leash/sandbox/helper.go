package sandbox

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/shoal-sh/shoal/leash"
	"github.com/zeebo/blake3"
)

// ExitHelperFailed is the helper's exit status when it refuses or fails
// before the target runs; its stderr line then starts with "shoal sandbox: ".
const ExitHelperFailed = 125

// Main is the body of the hidden "__sandbox-exec" subcommand. args are the
// arguments after the subcommand name: the payload, "--", then the
// target's argv. On success it does not return: the process becomes the
// target. Keep the path here free of heavy initialisation; it runs once
// per confined spawn.
func Main(args []string) int {
	if err := run(args); err != nil {
		fmt.Fprintf(os.Stderr, "shoal sandbox: %v\n", err)
		return ExitHelperFailed
	}
	return 0 // unreachable: run only returns on error
}

func run(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return fmt.Errorf("usage: %s <spec> -- argv...", HelperCommand)
	}
	var p payload
	if err := json.Unmarshal([]byte(args[0]), &p); err != nil {
		return fmt.Errorf("bad spec: %w", err)
	}
	if p.V != payloadVersion {
		return fmt.Errorf("spec version %d, want %d", p.V, payloadVersion)
	}
	argv := args[2:]
	path := p.Path
	if path == "" {
		var err error
		if path, err = exec.LookPath(argv[0]); err != nil {
			return err
		}
	}
	t, err := openTarget(path, p.Spec.Pin)
	if err != nil {
		return err
	}
	if p.Spec.Pin {
		if err := checkPin(p.Spec, path, t.hash); err != nil {
			return err
		}
	}
	if p.ABI >= 1 {
		if err := restrictSelf(p.Spec, p.ABI); err != nil {
			// Fail closed: the parent reported this spawn as confined.
			return fmt.Errorf("landlock: %w", err)
		}
	}
	return t.exec(argv, os.Environ())
}

// checkPin accepts the target if the hash of the opened file is granted,
// or its resolved path, or its base name.
func checkPin(spec leash.Spec, path, hash string) error {
	clean := filepath.Clean(path)
	if slices.Contains(spec.PinHashes, hash) || slices.Contains(spec.PinPaths, clean) ||
		slices.Contains(spec.PinNames, filepath.Base(clean)) {
		return nil
	}
	return fmt.Errorf("%w: %s (blake3 %s)", ErrNotPinned, path, hash)
}

// ErrNotPinned is returned by [Sandbox.Start] when the binary matches no
// pin; through the helper it becomes exit status [ExitHelperFailed].
var ErrNotPinned = errors.New("not a pinned binary")

// hashReader returns the hex BLAKE3 of r's contents.
func hashReader(r io.Reader) (string, error) {
	h := blake3.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashFile returns the hex BLAKE3 of the file at path, the bin_hash of a
// proc_spawn effect. The spawn itself re-hashes the descriptor it
// executes, so a file changed after this call is still caught.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h, err := hashReader(f)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return h, nil
}
