package journal

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// helperEnv names the journal path for the child process of TestKill9Durability. Test code
// may read the environment: this is the standard re-exec pattern, not configuration.
const helperEnv = "SHOAL_JOURNAL_TEST_HELPER_DB"

// TestHelperProcess is not a test: run as a child, it journals entries forever and prints
// "ack <id> <seq>" after each Begin+Finish+AppendEvent has returned.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	j, err := Open(path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(3)
	}
	ctx := context.Background()
	for i := 0; ; i++ {
		// Odd entries store their output as the kernel does (StoreBytes: the blob travels in
		// the finish's redo record), even ones with PutBytes (written and recorded at once).
		value := []byte(fmt.Sprintf(`{"$":"int","v":%d}`, i))
		var o Output
		if i%2 == 1 {
			o, err = j.StoreBytes(OutputValue, value)
		} else {
			o, err = j.PutBytes(ctx, OutputValue, value)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "put:", err)
			os.Exit(3)
		}
		id, err := j.Begin(ctx, ExecStart{Session: "s", Principal: "uid:0", Src: fmt.Sprintf("echo %d", i)})
		if err != nil {
			fmt.Fprintln(os.Stderr, "begin:", err)
			os.Exit(3)
		}
		fin := ExecFinish{OK: true, Status: new(int), DurNs: 1, Outputs: []Output{o}}
		payload := json.RawMessage(fmt.Sprintf(`{"entry_id":%d}`, id))
		var seq int64
		if i%2 == 0 { // separate writes
			if err := j.Finish(ctx, id, fin); err != nil {
				fmt.Fprintln(os.Stderr, "finish:", err)
				os.Exit(3)
			}
			if seq, err = j.AppendEvent(ctx, ChannelJournal, id, payload, 0); err != nil {
				fmt.Fprintln(os.Stderr, "event:", err)
				os.Exit(3)
			}
		} else { // the kernel's combined write
			p, err := j.QueueFinish(ctx, id, &fin, []EventAppend{{Channel: ChannelJournal, EntryID: id, Payload: payload}})
			if err != nil {
				fmt.Fprintln(os.Stderr, "queue finish:", err)
				os.Exit(3)
			}
			seqs, err := p.Wait()
			if err != nil {
				fmt.Fprintln(os.Stderr, "queue finish:", err)
				os.Exit(3)
			}
			seq = seqs[0]
		}
		// os.Stdout is unbuffered: once this line is written the client has been told.
		fmt.Printf("ack %d %d\n", id, seq)
	}
}

// An exec acknowledged to a client survives kill -9 of the kernel: the child journals rows
// and acknowledges each; after SIGKILL the parent reopens, the database passes integrity_check,
// and every acknowledged entry, output blob and event is there.
func TestKill9Durability(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "journal.db")
	for round := range 3 { // kill repeatedly: recovery of a recovered journal must work too
		acked := runAndKill(t, path, 150+round*50)
		j, err := Open(path, nil)
		if err != nil {
			t.Fatalf("round %d: reopen after kill -9: %v", round, err)
		}
		ctx := t.Context()
		if res, err := j.IntegrityCheck(ctx); err != nil || res != "ok" {
			t.Fatalf("round %d: integrity_check %q, %v", round, res, err)
		}
		for id := range acked {
			e, err := j.Get(ctx, id)
			if err != nil {
				t.Fatalf("round %d: acknowledged entry %d lost: %v", round, id, err)
			}
			if e.OK == nil || !*e.OK || len(e.Outputs) != 1 {
				t.Fatalf("round %d: entry %d not finished: %+v", round, id, e)
			}
			if _, err := j.Blobs().Get(e.Outputs[0].Hash); err != nil {
				t.Fatalf("round %d: output blob of %d: %v", round, id, err)
			}
		}
		// Every acknowledged event is there, and sequence numbers stay dense across crashes.
		evs, err := j.EventsSince(ctx, ChannelJournal, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		for id, seq := range acked {
			if seq >= int64(len(evs)) || evs[seq].EntryID != id {
				t.Fatalf("round %d: acknowledged event %d of entry %d lost", round, seq, id)
			}
		}
		for i, ev := range evs {
			if ev.Seq != int64(i) {
				t.Fatalf("round %d: seq %d at position %d", round, ev.Seq, i)
			}
		}
		j.Close()
	}
}

// runAndKill starts the helper, waits for at least n acknowledgements, SIGKILLs it while it is
// still writing, and returns every acknowledged entry id with its event seq.
func runAndKill(t *testing.T, path string, n int) map[int64]int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[int64]int64{}
	var mu sync.Mutex
	reached := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 3 || f[0] != "ack" {
				continue
			}
			id, _ := strconv.ParseInt(f[1], 10, 64)
			seq, _ := strconv.ParseInt(f[2], 10, 64)
			mu.Lock()
			acked[id] = seq
			if len(acked) == n {
				close(reached)
			}
			mu.Unlock()
		}
	}()
	select {
	case <-reached:
	case <-done:
		cmd.Wait()
		t.Fatalf("helper exited early: %s", stderr.String())
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("helper acknowledged %d of %d entries in 60s: %s", len(acked), n, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done // every line written before death has been read
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("helper did not die by SIGKILL: %v (%s)", err, stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	return acked
}
