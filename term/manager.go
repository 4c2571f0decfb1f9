package term

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ErrQuota reports that a principal already has its quota of open PTYs. The kernel maps
// it to RESOURCE_LIMIT.
var ErrQuota = errors.New("pty quota reached")

// ErrClosed reports an Open after [Manager.CloseAll].
var ErrClosed = errors.New("pty manager closed")

// DefaultQuota is the number of PTYs one principal may hold open at once.
const DefaultQuota = 16

// Owner is who opened a PTY. Only the same Owner can reach it; the quota is counted per
// Principal.
type Owner struct {
	Principal string
	Session   string
}

// ManagerOptions configures a [Manager]; the zero value means defaults.
type ManagerOptions struct {
	// Quota is the number of PTYs a principal may hold open; 0 means DefaultQuota.
	// A PTY counts until it is closed, even after its program exits.
	Quota int
	// OnEvent, when set, receives every PTY's events (see [Event]), with ID set.
	OnEvent func(Event)
	// Logf, when set, is every PTY's SpawnOptions.Logf unless the caller gives one.
	Logf func(format string, args ...any)
}

// Manager owns the PTYs of one kernel: it numbers them "pty:1", "pty:2", … (never
// reusing a number), scopes them to their [Owner] and enforces the quota.
type Manager struct {
	quota   int
	onEvent func(Event)
	logf    func(string, ...any)

	mu      sync.Mutex
	next    int
	ptys    map[int]*managed
	counts  map[string]int // open or opening PTYs per principal
	closing bool
}

type managed struct {
	owner Owner
	p     *PTY
}

// NewManager returns an empty Manager; opts may be nil.
func NewManager(opts *ManagerOptions) *Manager {
	m := &Manager{quota: DefaultQuota, ptys: map[int]*managed{}, counts: map[string]int{}}
	if opts != nil {
		if opts.Quota > 0 {
			m.quota = opts.Quota
		}
		m.onEvent = opts.OnEvent
		m.logf = opts.Logf
	}
	return m
}

// Open spawns a PTY for owner (see [Spawn]). It fails with [ErrQuota] when owner's
// principal has Quota PTYs open, a [*SpawnError] when the program cannot start, and an
// [ErrInvalidInput] error for an empty command.
func (m *Manager) Open(ctx context.Context, owner Owner, opts SpawnOptions) (*PTY, error) {
	if len(opts.Argv) == 0 || opts.Argv[0] == "" {
		return nil, fmt.Errorf("%w: empty command", ErrInvalidInput)
	}
	m.mu.Lock()
	if m.closing {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	if m.counts[owner.Principal] >= m.quota {
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: %d open", ErrQuota, m.quota)
	}
	// Reserve the slot and number now, so concurrent opens cannot overshoot.
	m.counts[owner.Principal]++
	m.next++
	n := m.next
	m.mu.Unlock()

	id := "pty:" + strconv.Itoa(n)
	if opts.Logf == nil {
		opts.Logf = m.logf
	}
	if m.onEvent != nil {
		own, all := opts.OnEvent, m.onEvent
		opts.OnEvent = func(e Event) {
			if own != nil {
				own(e)
			}
			all(e)
		}
	}
	p, err := spawn(ctx, opts, id)

	m.mu.Lock()
	if err != nil {
		m.release(owner.Principal)
		m.mu.Unlock()
		return nil, err
	}
	if m.closing {
		// CloseAll ran while we were spawning: do not leave this one behind.
		m.release(owner.Principal)
		m.mu.Unlock()
		_, _ = p.Close(context.WithoutCancel(ctx))
		return nil, ErrClosed
	}
	m.ptys[n] = &managed{owner: owner, p: p}
	m.mu.Unlock()
	return p, nil
}

func (m *Manager) release(principal string) {
	m.counts[principal]--
	if m.counts[principal] <= 0 {
		delete(m.counts, principal)
	}
}

// parseID accepts "pty:N" and a bare "N".
func parseID(id string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "pty:"))
	return n, err == nil && n > 0
}

// Get returns owner's PTY with the given id, or [ErrUnknownPTY].
func (m *Manager) Get(owner Owner, id string) (*PTY, error) {
	n, ok := parseID(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownPTY, id)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.ptys[n]
	if e == nil || e.owner != owner {
		return nil, fmt.Errorf("%w: %s", ErrUnknownPTY, id)
	}
	return e.p, nil
}

// Close removes owner's PTY from the manager (so it is unknown from then on) and ends
// it as [PTY.Close] does, returning the exit status.
func (m *Manager) Close(ctx context.Context, owner Owner, id string) (*ExitStatus, error) {
	n, ok := parseID(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownPTY, id)
	}
	m.mu.Lock()
	e := m.ptys[n]
	if e == nil || e.owner != owner {
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrUnknownPTY, id)
	}
	delete(m.ptys, n)
	m.release(owner.Principal)
	m.mu.Unlock()
	return e.p.Close(ctx)
}

// List describes owner's PTYs in ascending id order.
func (m *Manager) List(owner Owner) []Info {
	m.mu.Lock()
	var ns []int
	for n, e := range m.ptys {
		if e.owner == owner {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	ps := make([]*PTY, len(ns))
	for i, n := range ns {
		ps[i] = m.ptys[n].p
	}
	m.mu.Unlock()
	out := make([]Info, len(ps))
	for i, p := range ps {
		out[i] = p.Info()
	}
	return out
}

// CloseAll closes every PTY concurrently and refuses later opens; for kernel shutdown,
// so no child outlives the kernel. It returns when all are closed.
func (m *Manager) CloseAll(ctx context.Context) {
	m.mu.Lock()
	m.closing = true
	all := make([]*PTY, 0, len(m.ptys))
	for _, e := range m.ptys {
		all = append(all, e.p)
	}
	clear(m.ptys)
	clear(m.counts)
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range all {
		wg.Go(func() { _, _ = p.Close(ctx) })
	}
	wg.Wait()
}
