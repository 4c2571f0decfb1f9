//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/shoal-sh/shoal/leash"
	"golang.org/x/sys/unix"
)

// Filesystem rights by the Landlock ABI that introduced them.
const (
	fsV1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	fsV2 = fsV1 | unix.LANDLOCK_ACCESS_FS_REFER
	fsV3 = fsV2 | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	fsV5 = fsV3 | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

	// Rights that make sense on a single file rather than a directory.
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

	readRights   = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_EXECUTE
	deleteRights = unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR
	deviceRights = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

	ruleNetPort = 2 // LANDLOCK_RULE_NET_PORT
)

// deviceFiles stay usable inside any filesystem sandbox: reopening them
// is routine (shell redirections, isatty checks) and grants nothing.
var deviceFiles = [...]string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// landlockABI returns the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 || int(v) < 0 {
		return 0
	}
	return int(v)
}

// handledFS is every filesystem right the given ABI knows.
func handledFS(abi int) uint64 {
	switch {
	case abi >= 5:
		return fsV5
	case abi >= 3:
		return fsV3
	case abi >= 2:
		return fsV2
	case abi >= 1:
		return fsV1
	}
	return 0
}

type netPortAttr struct {
	allowedAccess uint64
	port          uint64
}

// restrictSelf confines the calling OS thread, which must stay locked and
// call execve next: execve ends the other threads, and the new program
// inherits this thread's domain. Any failure is returned so the caller
// fails closed.
func restrictSelf(spec leash.Spec, abi int) error {
	runtime.LockOSThread()
	attr := unix.LandlockRulesetAttr{}
	size := unsafe.Sizeof(attr.Handled_access_fs)
	if spec.FS {
		attr.Handled_access_fs = handledFS(abi)
	}
	if spec.RestrictConnect || spec.RestrictBind {
		if abi < 4 {
			return fmt.Errorf("landlock ABI %d cannot restrict TCP ports (needs 4)", abi)
		}
		if spec.RestrictConnect {
			attr.Handled_access_net |= unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		}
		if spec.RestrictBind {
			attr.Handled_access_net |= unix.LANDLOCK_ACCESS_NET_BIND_TCP
		}
		size += unsafe.Sizeof(attr.Handled_access_net)
	}
	if attr.Handled_access_fs == 0 && attr.Handled_access_net == 0 {
		return nil
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	rs := int(fd)
	defer unix.Close(rs)

	if spec.FS {
		h := attr.Handled_access_fs
		for _, r := range spec.Read {
			if err := addPath(rs, r, readRights&h, true); err != nil {
				return err
			}
		}
		for _, r := range spec.Write {
			if err := addPath(rs, r, h, true); err != nil {
				return err
			}
		}
		for _, r := range spec.Delete {
			if err := addPath(rs, r, deleteRights&h, true); err != nil {
				return err
			}
		}
		for _, d := range deviceFiles {
			if err := addPath(rs, d, deviceRights&h, false); err != nil {
				return err
			}
		}
	}
	for _, p := range spec.ConnectPorts {
		if err := addPort(rs, p, unix.LANDLOCK_ACCESS_NET_CONNECT_TCP); err != nil {
			return err
		}
	}
	for _, p := range spec.BindPorts {
		if err := addPort(rs, p, unix.LANDLOCK_ACCESS_NET_BIND_TCP); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rs), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// addPath grants access beneath path. A missing path is an error when
// required (the parent already dropped roots that did not exist, so one
// vanishing now is suspicious) and skipped otherwise.
func addPath(rs int, path string, access uint64, required bool) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if !required {
			return nil
		}
		return fmt.Errorf("sandbox root %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("sandbox root %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		// Directory-only rights on a file make add_rule fail with EINVAL.
		access &= fileRights
	}
	if access == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rs), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock rule for %s: %w", path, errno)
	}
	return nil
}

func addPort(rs int, port int, access uint64) error {
	attr := netPortAttr{allowedAccess: access, port: uint64(port)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rs), ruleNetPort,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock rule for port %d: %w", port, errno)
	}
	return nil
}

// fdExec: the helper executes the very descriptor it hashed.
const fdExec = true
