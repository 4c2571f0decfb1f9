package term

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newManagerT(t *testing.T, opts *ManagerOptions) *Manager {
	m := NewManager(opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), long)
		defer cancel()
		m.CloseAll(ctx)
	})
	return m
}

func sleeper(t *testing.T) SpawnOptions {
	return SpawnOptions{Argv: []string{"sleep", "1000"}, Env: testEnv(t)}
}

func TestManagerIDsAndOwners(t *testing.T) {
	t.Parallel()
	m := newManagerT(t, nil)
	alice := Owner{Principal: "alice", Session: "s1"}
	aliceOther := Owner{Principal: "alice", Session: "s2"}
	bob := Owner{Principal: "bob", Session: "s1"}

	p1, err := m.Open(t.Context(), alice, sleeper(t))
	if err != nil {
		t.Fatal(err)
	}
	p2, err := m.Open(t.Context(), bob, sleeper(t))
	if err != nil {
		t.Fatal(err)
	}
	p3, err := m.Open(t.Context(), alice, sleeper(t))
	if err != nil {
		t.Fatal(err)
	}
	if p1.ID() != "pty:1" || p2.ID() != "pty:2" || p3.ID() != "pty:3" {
		t.Errorf("ids = %s %s %s, want pty:1..3", p1.ID(), p2.ID(), p3.ID())
	}
	// A second manager numbers on its own.
	if q, err := newManagerT(t, nil).Open(t.Context(), alice, sleeper(t)); err != nil || q.ID() != "pty:1" {
		t.Errorf("second manager: %v, %v", q, err)
	}

	if got, err := m.Get(alice, "pty:3"); err != nil || got != p3 {
		t.Errorf("Get(alice, pty:3) = %v, %v", got, err)
	}
	if got, err := m.Get(alice, "3"); err != nil || got != p3 {
		t.Errorf("Get(alice, 3) = %v, %v", got, err)
	}
	for _, c := range []struct {
		o  Owner
		id string
	}{{bob, "pty:1"}, {aliceOther, "pty:1"}, {alice, "pty:2"}, {alice, "pty:99"}, {alice, "nope"}, {alice, "pty:-1"}, {alice, ""}} {
		if _, err := m.Get(c.o, c.id); !errors.Is(err, ErrUnknownPTY) {
			t.Errorf("Get(%v, %q) = %v, want ErrUnknownPTY", c.o, c.id, err)
		}
		if _, err := m.Close(t.Context(), c.o, c.id); !errors.Is(err, ErrUnknownPTY) {
			t.Errorf("Close(%v, %q) = %v, want ErrUnknownPTY", c.o, c.id, err)
		}
	}

	var ids []string
	for _, info := range m.List(alice) {
		ids = append(ids, info.ID)
		if !info.Alive || info.Pid == 0 || info.Cols != 80 || info.Rows != 24 || info.Started.IsZero() ||
			!cmp.Equal(info.Argv, []string{"sleep", "1000"}) {
			t.Errorf("info = %+v", info)
		}
	}
	if !cmp.Equal(ids, []string{"pty:1", "pty:3"}) {
		t.Errorf("List(alice) ids = %v", ids)
	}
	if l := m.List(aliceOther); len(l) != 0 {
		t.Errorf("List(other session) = %v", l)
	}

	st, err := m.Close(t.Context(), alice, "pty:1")
	if err != nil || st == nil || st.Signal == nil || *st.Signal != "SIGHUP" {
		t.Errorf("Close = %+v, %v", st, err)
	}
	if _, err := m.Get(alice, "pty:1"); !errors.Is(err, ErrUnknownPTY) {
		t.Errorf("Get after Close: %v", err)
	}
	if !procGone(p1.Pid()) {
		t.Errorf("closed pty's pid %d alive", p1.Pid())
	}
	if p4, err := m.Open(t.Context(), alice, sleeper(t)); err != nil || p4.ID() != "pty:4" {
		t.Errorf("ids are not reused: %v, %v", p4, err)
	}
}

func TestManagerListDoesNotConsumeChanged(t *testing.T) {
	t.Parallel()
	m := newManagerT(t, nil)
	o := Owner{Principal: "a"}
	p, err := m.Open(t.Context(), o, SpawnOptions{Argv: []string{"sh", "-c", "echo hi; exec sleep 1000"}, Env: testEnv(t)})
	if err != nil {
		t.Fatal(err)
	}
	waitText(t, p, "hi")
	if _, _, err := p.Resize(70, 20); err != nil {
		t.Fatal(err)
	}
	if l := m.List(o); len(l) != 1 || l[0].Cols != 70 {
		t.Fatalf("List = %+v", l)
	}
	if s, _ := p.Read(t.Context(), ReadOptions{}); !s.Changed {
		t.Errorf("List consumed the pending change")
	}
}

func TestManagerQuota(t *testing.T) {
	t.Parallel()
	m := newManagerT(t, &ManagerOptions{Quota: 2})
	a1 := Owner{Principal: "alice", Session: "1"}
	a2 := Owner{Principal: "alice", Session: "2"}
	b := Owner{Principal: "bob"}
	if _, err := m.Open(t.Context(), a1, sleeper(t)); err != nil {
		t.Fatal(err)
	}
	p, err := m.Open(t.Context(), a2, sleeper(t))
	if err != nil {
		t.Fatal(err)
	}
	// The quota is per principal, across sessions.
	if _, err := m.Open(t.Context(), a1, sleeper(t)); !errors.Is(err, ErrQuota) {
		t.Fatalf("third open: %v, want ErrQuota", err)
	}
	if _, err := m.Open(t.Context(), b, sleeper(t)); err != nil {
		t.Errorf("other principal: %v", err)
	}
	// A failed spawn gives its slot back.
	if _, err := m.Open(t.Context(), b, SpawnOptions{Argv: []string{"no-such-cmd-xyz"}, Env: testEnv(t)}); err == nil {
		t.Fatal("spawn of a missing command succeeded")
	}
	if _, err := m.Open(t.Context(), b, sleeper(t)); err != nil {
		t.Errorf("slot of the failed spawn not returned: %v", err)
	}
	if _, err := m.Close(t.Context(), a2, p.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Open(t.Context(), a1, sleeper(t)); err != nil {
		t.Errorf("open after close: %v", err)
	}
	// A bad request is reported as such even at the quota, and takes no number.
	if _, err := m.Open(t.Context(), a1, SpawnOptions{}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("empty command at quota: %v", err)
	}
	if got := NewManager(nil).quota; got != DefaultQuota {
		t.Errorf("default quota = %d", got)
	}
}

func TestManagerConcurrentOpenRespectsQuota(t *testing.T) {
	t.Parallel()
	m := newManagerT(t, &ManagerOptions{Quota: 3})
	o := Owner{Principal: "p"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok, quota int
	for range 8 {
		wg.Go(func() {
			_, err := m.Open(t.Context(), o, sleeper(t))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrQuota):
				quota++
			default:
				t.Errorf("open: %v", err)
			}
		})
	}
	wg.Wait()
	if ok != 3 || quota != 5 {
		t.Errorf("opened %d, refused %d; want 3 and 5", ok, quota)
	}
}

func TestManagerCloseAll(t *testing.T) {
	t.Parallel()
	m := NewManager(nil)
	var pids []int
	for i := range 4 {
		o := Owner{Principal: "p", Session: string(rune('a' + i))}
		opts := sleeper(t)
		if i == 3 {
			opts.Argv = []string{"sh", "-c", `trap "" HUP TERM; echo ready; sleep 1000`}
		}
		p, err := m.Open(t.Context(), o, opts)
		if err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			waitText(t, p, "ready")
		}
		pids = append(pids, p.Pid())
	}
	start := time.Now()
	m.CloseAll(t.Context())
	if d := time.Since(start); d > long {
		t.Errorf("CloseAll took %v", d)
	}
	for _, pid := range pids {
		if !procGone(pid) {
			t.Errorf("pid %d survived CloseAll", pid)
		}
		waitGroupGone(t, pid)
	}
	if _, err := m.Open(t.Context(), Owner{}, sleeper(t)); !errors.Is(err, ErrClosed) {
		t.Errorf("Open after CloseAll: %v, want ErrClosed", err)
	}
	if l := m.List(Owner{Principal: "p", Session: "a"}); len(l) != 0 {
		t.Errorf("List after CloseAll = %v", l)
	}
}

func TestManagerEvents(t *testing.T) {
	t.Parallel()
	events := make(chan Event, 100)
	m := newManagerT(t, &ManagerOptions{OnEvent: func(e Event) {
		select {
		case events <- e:
		default:
		}
	}})
	// Floods the screen: change events must be coalesced to at most ten a second.
	p, err := m.Open(t.Context(), Owner{}, SpawnOptions{
		Argv: []string{"sh", "-c", `i=0; while [ $i -lt 3000 ]; do echo "line $i"; i=$((i+1)); done; sleep 0.5; exit 4`},
		Env:  testEnv(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var changed int
	var exit *Event
	timeout := time.After(long)
	for exit == nil {
		select {
		case e := <-events:
			if e.ID != p.ID() {
				t.Errorf("event id %q, want %q", e.ID, p.ID())
			}
			switch e.Kind {
			case EventChanged:
				changed++
			case EventExit:
				exit = &e
			}
		case <-timeout:
			t.Fatalf("no exit event; %d change events", changed)
		}
	}
	if changed == 0 {
		t.Errorf("no change events")
	}
	if limit := int(time.Since(start)/eventInterval) + 2; changed > limit {
		t.Errorf("%d change events in %v: not coalesced", changed, time.Since(start))
	}
	if exit.Exit == nil || exit.Exit.Status == nil || *exit.Exit.Status != 4 {
		t.Errorf("exit event = %+v", exit.Exit)
	}
}

func TestWireShapes(t *testing.T) {
	t.Parallel()
	seven, kill := 7, "SIGKILL"
	for _, c := range []struct {
		v    any
		want string
	}{
		{ExitStatus{Status: &seven}, `{"status":7,"signal":null}`},
		{ExitStatus{Signal: &kill}, `{"status":null,"signal":"SIGKILL"}`},
		{Cursor{Row: 2, Col: 4}, `{"row":2,"col":4,"hidden":false}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("json %+v = %s, %v; want %s", c.v, b, err, c.want)
		}
	}
}

// TestManagerCloseAllRacesOpen: opens that overlap CloseAll either fail or are closed
// by it; no child survives.
func TestManagerCloseAllRacesOpen(t *testing.T) {
	t.Parallel()
	m := NewManager(&ManagerOptions{Quota: 100})
	var mu sync.Mutex
	var pids []int
	var wg sync.WaitGroup
	started := make(chan struct{})
	for i := range 6 {
		wg.Go(func() {
			if i == 0 {
				close(started)
			}
			for range 5 {
				p, err := m.Open(t.Context(), Owner{Principal: "p"}, sleeper(t))
				if err != nil {
					return
				}
				mu.Lock()
				pids = append(pids, p.Pid())
				mu.Unlock()
			}
		})
	}
	<-started
	m.CloseAll(t.Context())
	wg.Wait()
	for _, pid := range pids {
		waitGroupGone(t, pid)
	}
	if _, err := m.Open(t.Context(), Owner{Principal: "p"}, sleeper(t)); err == nil {
		t.Error("Open after CloseAll succeeded")
	}
}
