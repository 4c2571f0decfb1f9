package term

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ErrUnknownPTY reports a PTY id that is unknown, closed, or owned by someone else. The
// kernel maps it to UNKNOWN_PTY.
var ErrUnknownPTY = errors.New("unknown pty")

// Read waits are bounded: MaxWait caps ReadOptions.WaitMs, and DefaultUntilWait applies
// when UntilText is given without a wait.
const (
	MaxWait          = 30 * time.Second
	DefaultUntilWait = 10 * time.Second
)

// sendTimeout bounds a write to a program that does not read its input; replyTimeout
// bounds a terminal query reply, which is dropped after it (see drainReplies).
const (
	sendTimeout  = 5 * time.Second
	replyTimeout = time.Second
	// exitSettle is how long the reaper lets the last output reach the screen before
	// reporting the exit, so a read that sees alive=false also sees the final output.
	exitSettle = 250 * time.Millisecond
	// recheckInterval is the shortest time between two looks at the screen while a
	// Read waits.
	recheckInterval = 2 * time.Millisecond
	// eventInterval spaces change events: at most ten a second.
	eventInterval = 100 * time.Millisecond
)

// Cursor is the cursor position, zero-based, and whether the program hid it.
type Cursor struct {
	Row    int  `json:"row"`
	Col    int  `json:"col"`
	Hidden bool `json:"hidden"`
}

// ExitStatus is how a child ended: Status for a normal exit, Signal ("SIGKILL") when a
// signal killed it; the other is nil. Values are never modified after creation. The
// JSON form is the wire's exit object.
type ExitStatus struct {
	Status *int    `json:"status"`
	Signal *string `json:"signal"`
}

// Screen is what [PTY.Read] returns: the visible screen only, never scrollback.
type Screen struct {
	// Lines has exactly Rows entries, plain text with trailing blanks trimmed.
	Lines      []string
	Cursor     Cursor
	Cols, Rows int
	AltScreen  bool
	// Changed reports whether the screen (lines, cursor, alt screen) differs from this
	// PTY's previous Read, or the PTY was resized since; true on the first Read.
	Changed bool
	// Alive is false once the child has been reaped; Exit is then set.
	Alive bool
	Exit  *ExitStatus
	// Matched reports whether ReadOptions.UntilText is on the screen.
	Matched bool
	Pid     int
}

// ReadOptions controls how long [PTY.Read] may wait.
type ReadOptions struct {
	// WaitMs > 0 waits up to that long for the screen to change (or the child to exit)
	// before returning. Capped at MaxWait.
	WaitMs int
	// UntilText, when non-empty, waits instead until the text appears on the screen
	// (within a line, or across lines joined by "\n"), the child exits, or WaitMs
	// passes (DefaultUntilWait when WaitMs is 0).
	UntilText string
}

// Info describes a PTY for listings, without its screen and without consuming Changed.
type Info struct {
	ID         string
	Argv       []string
	Pid        int
	Cols, Rows int
	Alive      bool
	Started    time.Time
	Exit       *ExitStatus
}

// EventKind says what an [Event] reports.
type EventKind int

const (
	// EventChanged: new output reached the screen. Coalesced, at most ten a second.
	EventChanged EventKind = iota + 1
	// EventExit: the child was reaped; Event.Exit is set. Sent once.
	EventExit
)

// Event is a notification from a PTY, delivered on a goroutine of its own so a slow
// consumer never stalls the PTY's reader: while the callback runs, further changes
// coalesce into one.
type Event struct {
	ID   string // the Manager's "pty:N"; empty for a PTY from Spawn
	Kind EventKind
	Exit *ExitStatus
}

// PTY is one program running on a pseudo-terminal. Its methods are safe for concurrent
// use.
type PTY struct {
	id      string
	argv    []string
	pid     int
	started time.Time
	cmd     *exec.Cmd
	ptmx    *os.File
	onEvent func(Event)
	seed    maphash.Seed

	// writeMu serialises writes to the master (Send and query replies) and their deadlines.
	writeMu sync.Mutex

	mu         sync.Mutex
	emu        emulator
	cols, rows int
	dirty      bool     // output arrived since cache was taken
	cache      snapshot // last snapshot taken
	cacheHash  uint64
	readOnce   bool   // a Read has returned
	lastHash   uint64 // hash of the screen the previous Read returned
	forceChg   bool   // a resize happened since the previous Read
	exit       *ExitStatus
	closed     bool
	wake       chan struct{} // closed and replaced on every change; waiters select on it

	changes    chan struct{} // one pending change notification for the event goroutine
	exited     chan struct{} // closed once exit is set
	readerDone chan struct{} // closed when the reader goroutine ends
	stop       chan struct{} // closed by Close; ends the event goroutine
	closeOnce  sync.Once
	closeErr   error
}

func newPTY(id string, opts SpawnOptions, cmd *exec.Cmd, ptmx *os.File, cols, rows int) *PTY {
	p := &PTY{
		id:         id,
		argv:       append([]string(nil), opts.Argv...),
		pid:        cmd.Process.Pid,
		started:    time.Now(),
		cmd:        cmd,
		ptmx:       ptmx,
		onEvent:    opts.OnEvent,
		seed:       maphash.MakeSeed(),
		emu:        newVTEmulator(cols, rows, opts.Logf),
		cols:       cols,
		rows:       rows,
		dirty:      true,
		wake:       make(chan struct{}),
		changes:    make(chan struct{}, 1),
		exited:     make(chan struct{}),
		readerDone: make(chan struct{}),
		stop:       make(chan struct{}),
	}
	return p
}

func (p *PTY) start() {
	go p.readLoop()
	go p.drainReplies()
	go p.reap()
	if p.onEvent != nil {
		go p.deliverEvents()
	}
}

// ID returns the Manager's id ("pty:N"), or "" for a PTY from [Spawn].
func (p *PTY) ID() string { return p.id }

// Pid returns the child's pid, which is also its process group and session id.
func (p *PTY) Pid() int { return p.pid }

// Argv returns the command as given to [Spawn].
func (p *PTY) Argv() []string { return append([]string(nil), p.argv...) }

// broadcastLocked wakes every Read waiting for a change. p.mu must be held.
func (p *PTY) broadcastLocked() {
	close(p.wake)
	p.wake = make(chan struct{})
}

// readLoop feeds the program's output to the emulator until the PTY reports EIO (every
// slave descriptor closed) or the master is closed.
func (p *PTY) readLoop() {
	defer close(p.readerDone)
	// Small reads keep the time the emulator holds p.mu short, so Read stays fast
	// while a program floods the terminal.
	buf := make([]byte, 8<<10)
	for {
		n, err := p.ptmx.Read(buf)
		if n > 0 {
			p.mu.Lock()
			p.emu.Write(buf[:n])
			p.dirty = true
			p.broadcastLocked()
			p.mu.Unlock()
			select {
			case p.changes <- struct{}{}:
			default: // one is already pending: coalesce
			}
		}
		if err != nil {
			// EIO is the normal end; os.ErrClosed means Close. Either way the output
			// is over.
			return
		}
	}
}

// drainReplies copies the emulator's answers to terminal queries into the PTY for the
// PTY's whole life. Unread, they block the emulator's Write and with it the reader.
func (p *PTY) drainReplies() {
	r := p.emu.Replies()
	buf := make([]byte, 1024)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			// A program that stops reading its input must not wedge the emulator,
			// so a reply that cannot be written within replyTimeout is dropped: the
			// program was not going to read it.
			_, _ = p.write(context.Background(), buf[:n], replyTimeout)
		}
		if err != nil {
			return
		}
	}
}

// write writes b to the master within timeout (or ctx's deadline if sooner).
func (p *PTY) write(ctx context.Context, b []byte, timeout time.Duration) (int, error) {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := p.ptmx.SetWriteDeadline(deadline); err != nil {
		return 0, fmt.Errorf("write pty: %w", err)
	}
	n, err := p.ptmx.Write(b)
	if err != nil {
		return n, fmt.Errorf("write pty: %w", err)
	}
	return n, nil
}

// Send writes in to the program, encoding named keys for the cursor-key mode the
// program has set. It returns the number of bytes written. A closed PTY gives
// [ErrUnknownPTY]; an unknown key a [*KeyError] before anything is written.
func (p *PTY) Send(ctx context.Context, in Input) (int, error) {
	p.mu.Lock()
	closed, app := p.closed, p.emu.AppCursor()
	p.mu.Unlock()
	if closed {
		return 0, ErrUnknownPTY
	}
	b, err := in.Encode(app)
	if err != nil {
		return 0, err
	}
	if len(b) == 0 {
		return 0, nil
	}
	return p.write(ctx, b, sendTimeout)
}

// snapshotLocked returns the current screen and its hash, reusing the cached one when
// no output arrived since. p.mu must be held.
func (p *PTY) snapshotLocked() (snapshot, uint64) {
	if p.dirty {
		p.cache = p.emu.Snapshot()
		p.cacheHash = hashSnapshot(p.seed, &p.cache)
		p.dirty = false
	}
	return p.cache, p.cacheHash
}

func hashSnapshot(seed maphash.Seed, s *snapshot) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, l := range s.lines {
		h.WriteString(l)
		h.WriteByte('\n')
	}
	var b [16]byte
	put := func(i, v int) {
		for k := range 4 {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	put(0, s.cursor.Row)
	put(4, s.cursor.Col)
	put(8, s.cols)
	put(12, s.rows)
	h.Write(b[:])
	var flags byte
	if s.cursor.Hidden {
		flags |= 1
	}
	if s.altScreen {
		flags |= 2
	}
	h.WriteByte(flags)
	return h.Sum64()
}

// Read returns the visible screen. With opts.WaitMs or opts.UntilText it first waits
// (without polling) for a change, the text, the child's exit, or the time limit,
// whichever comes first. Each Read that returns consumes Changed. A closed PTY gives
// [ErrUnknownPTY]; a done ctx ends the wait with ctx's error.
func (p *PTY) Read(ctx context.Context, opts ReadOptions) (Screen, error) {
	wait := min(max(time.Duration(opts.WaitMs)*time.Millisecond, 0), MaxWait)
	if opts.UntilText != "" && opts.WaitMs <= 0 {
		wait = DefaultUntilWait
	}
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	timedOut := wait == 0
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return Screen{}, ErrUnknownPTY
		}
		snap, h := p.snapshotLocked()
		changed := !p.readOnce || p.forceChg || h != p.lastHash
		matched := opts.UntilText != "" && screenContains(snap.lines, opts.UntilText)
		var ready bool
		if opts.UntilText != "" {
			ready = matched
		} else {
			ready = changed
		}
		if ready || timedOut || p.exit != nil {
			p.readOnce, p.forceChg, p.lastHash = true, false, h
			s := Screen{
				Lines:     append([]string(nil), snap.lines...),
				Cursor:    snap.cursor,
				Cols:      snap.cols,
				Rows:      snap.rows,
				AltScreen: snap.altScreen,
				Changed:   changed,
				Alive:     p.exit == nil,
				Exit:      p.exit,
				Matched:   matched,
				Pid:       p.pid,
			}
			p.mu.Unlock()
			return s, nil
		}
		wake := p.wake
		p.mu.Unlock()
		checked := time.Now()
		select {
		case <-wake:
		case <-timeout:
			timedOut = true
		case <-ctx.Done():
			return Screen{}, ctx.Err()
		}
		// A program that writes a line at a time wakes us for every few bytes, and
		// a snapshot costs tens of microseconds: look at the screen at most once per
		// recheckInterval, like a terminal's frame rate, and let output accumulate.
		if rest := recheckInterval - time.Since(checked); rest > 0 && !timedOut {
			t := time.NewTimer(rest)
			select {
			case <-t.C:
			case <-timeout:
				timedOut = true
			case <-ctx.Done():
				t.Stop()
				return Screen{}, ctx.Err()
			}
			t.Stop()
		}
	}
}

func screenContains(lines []string, text string) bool {
	for _, l := range lines {
		if strings.Contains(l, text) {
			return true
		}
	}
	return strings.Contains(text, "\n") && strings.Contains(strings.Join(lines, "\n"), text)
}

// Resize changes the screen size (clamped to 1..1000; 0 keeps the current value) and
// returns the size in effect. The emulator is resized before the PTY, so the redraw
// the program does on SIGWINCH lands on a screen of the new size. The next Read
// reports Changed.
func (p *PTY) Resize(cols, rows int) (int, int, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return 0, 0, ErrUnknownPTY
	}
	cols, rows = clampSize(cols, p.cols), clampSize(rows, p.rows)
	p.emu.Resize(cols, rows)
	p.cols, p.rows = cols, rows
	p.dirty, p.forceChg = true, true
	p.broadcastLocked()
	p.mu.Unlock()
	if err := setWinsize(p.ptmx, cols, rows); err != nil {
		return cols, rows, err
	}
	return cols, rows, nil
}

// Info describes the PTY without touching its screen state.
func (p *PTY) Info() Info {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Info{
		ID:      p.id,
		Argv:    append([]string(nil), p.argv...),
		Pid:     p.pid,
		Cols:    p.cols,
		Rows:    p.rows,
		Alive:   p.exit == nil,
		Started: p.started,
		Exit:    p.exit,
	}
}

// Exited returns a channel closed once the child has been reaped.
func (p *PTY) Exited() <-chan struct{} { return p.exited }

// deliverEvents calls onEvent for changes (spaced by eventInterval) and the exit.
func (p *PTY) deliverEvents() {
	exited := p.exited
	for {
		select {
		case <-p.changes:
			p.onEvent(Event{ID: p.id, Kind: EventChanged})
			t := time.NewTimer(eventInterval)
			select {
			case <-t.C:
			case <-p.stop:
				t.Stop()
				if exited != nil && p.waitExit(context.Background(), 0) {
					p.deliverExit()
				}
				return
			}
		case <-exited:
			exited = nil
			p.deliverExit()
		case <-p.stop:
			// Close reaps before it stops us, so the exit is known: report it even
			// when both were ready and select picked the stop.
			if exited != nil && p.waitExit(context.Background(), 0) {
				p.deliverExit()
			}
			return
		}
	}
}

func (p *PTY) deliverExit() {
	p.mu.Lock()
	st := p.exit
	p.mu.Unlock()
	p.onEvent(Event{ID: p.id, Kind: EventExit, Exit: st})
}
