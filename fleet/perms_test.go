package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// startNATSWithUsers starts a nats-server from a configuration file whose
// authorization block is the roles' permission sets as Config writes
// them (and docs/fleet.md shows): users worker-1 (worker), alice and
// mallory (submitters).
func startNATSWithUsers(t *testing.T) string {
	t.Helper()
	worker, err := PermissionsFor(RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	submitter, err := PermissionsFor(RoleSubmitter)
	if err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`listen: "127.0.0.1:-1"
jetstream { store_dir: %q }
authorization {
  WORKER = %s
  SUBMITTER = %s
  users = [
    {user: worker-1, password: w1, permissions: $WORKER}
    {user: alice, password: a, permissions: $SUBMITTER}
    {user: mallory, password: m, permissions: $SUBMITTER}
  ]
}
`, t.TempDir(), worker.Config(), submitter.Config())
	path := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("the permission sets do not make a valid nats-server configuration: %v\n%s", err, conf)
	}
	opts.NoSigs, opts.NoLog = true, true
	return testkit.ServeNATS(t, opts)
}

// openAs opens the fleet as a NATS user; the connection's asynchronous
// errors (permission violations) go to errs.
func openAs(t *testing.T, url, user, password string, errs chan<- error) (*Fleet, jetstream.JetStream) {
	t.Helper()
	nc, js := testkit.ConnectJetStream(t, url, nats.UserInfo(user, password), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		select {
		case errs <- err:
		default:
		}
	}))
	f, err := Open(context.Background(), nc, js, Options{Lease: 3 * time.Second, User: user})
	if err != nil {
		t.Fatalf("open as %s: %v", user, err)
	}
	return f, js
}

// A worker's NATS user claims, renews, records, publishes events and adds
// spend, but the server refuses its answer to its own run's question; a
// submitter's answer goes through and the run gets it, unless the
// submitter is not the run's; an answer the worker routes through a
// stream of its own is refused by the worker.
func TestWorkerCannotAnswerItsRun(t *testing.T) {
	ctx := context.Background()
	url := startNATSWithUsers(t)
	aliceErrs, workerErrs := make(chan error, 16), make(chan error, 16)
	alice, _ := openAs(t, url, "alice", "a", aliceErrs)
	r := submit(t, alice, Spec{Kind: Workflow, Repo: "/tmp/r.git", Task: "Add Sub", Submitter: "alice"})
	worker, wjs := openAs(t, url, "worker-1", "w1", workerErrs)
	cl := claimNext(t, worker, "worker-1")
	if _, err := cl.Renew(ctx); err != nil {
		t.Fatalf("the worker's user cannot renew its lease: %v", err)
	}
	if err := worker.Publish(ctx, kernel.Event{Run: cl.Run.Ref(), Kind: kernel.EventMessage, Text: "Which operation?"}); err != nil {
		t.Fatalf("the worker's user cannot publish events: %v", err)
	}
	if err := worker.AddSpend(ctx, "alice", kernel.Usage{PromptTokens: 10}); err != nil {
		t.Fatalf("the worker's user cannot add spend: %v", err)
	}
	state := filepath.Join(t.TempDir(), "state.db")
	for i := range 2 { // the second save supersedes (deletes) the first
		if err := os.WriteFile(state, []byte(fmt.Sprint("state ", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := cl.SaveState(ctx, state, i); err != nil {
			t.Fatalf("the worker's user cannot save the run's state: %v", err)
		}
	}
	if ok, err := worker.FetchState(ctx, cl.Current(), state); !ok || err != nil {
		t.Fatalf("the worker's user cannot fetch the run's state: %v, %v", ok, err)
	}
	got, refused := make(chan string, 8), make(chan string, 8)
	unsub, err := worker.AnswersOf(cl.Run, func(line string) { got <- line }, func(why string) { refused <- why })
	if err != nil {
		t.Fatal(err)
	}
	defer unsub()

	// the worker answers its own run: the server refuses it
	if err := worker.Answer(r.ID, "y"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-workerErrs:
		if want := `permissions violation for publish to "autarch.fleet.answers.` + r.ID + `"`; !strings.Contains(strings.ToLower(err.Error()), want) {
			t.Errorf("the worker's answer: %v, want %s", err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not refuse the worker's answer")
	}
	// nor may it raise a budget
	sctx, scancel := context.WithTimeout(ctx, 2*time.Second)
	defer scancel()
	if _, err := worker.SetBudget(sctx, "alice", 100, 0, true); err == nil {
		t.Error("the worker's user set alice's budget")
	}

	// another submitter's answer reaches the worker, which refuses it
	mallory, _ := openAs(t, url, "mallory", "m", make(chan error, 16))
	if err := mallory.Answer(r.ID, "y"); err != nil {
		t.Fatal(err)
	}
	select {
	case why := <-refused:
		if !strings.Contains(why, `an answer from "mallory" was refused: only the run's submitter alice answers`) {
			t.Errorf("refused: %s", why)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mallory's answer was not refused")
	}

	// an answer republished by a stream the worker set up is refused
	_, err = wjs.CreateStream(ctx, jetstream.StreamConfig{Name: "ECHO", Sources: []*jetstream.StreamSource{{Name: eventsStream}},
		RePublish: &jetstream.RePublish{Source: eventsPrefix + "." + r.ID, Destination: answersPrefix + "." + r.ID}})
	if err != nil {
		t.Fatalf("the worker's user could not set up a republishing stream: %v", err)
	}
	select {
	case why := <-refused:
		if !strings.Contains(why, "a stream or a consumer delivered") {
			t.Errorf("refused: %s", why)
		}
	case line := <-got:
		t.Fatalf("a republished event was taken as an answer: %q", line)
	case <-time.After(10 * time.Second):
		t.Fatal("the server republished nothing from the worker's stream")
	}

	// the submitter's answer goes through
	if err := alice.Answer(r.ID, "1"); err != nil {
		t.Fatal(err)
	}
	select {
	case line := <-got:
		if line != "1" {
			t.Errorf("the run got %q, want alice's 1", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("alice's answer did not reach the run")
	}
	select {
	case err := <-aliceErrs:
		t.Errorf("alice's connection: %v", err)
	default:
	}
	if err := cl.Finish(ctx, Completed, "done"); err != nil {
		t.Fatalf("the worker's user cannot finish its run: %v", err)
	}
}

// docs/fleet.md shows each role's permission set as PermissionsFor gives
// it, so that what operators copy is what the tests enforce.
func TestFleetDocShowsThePermissions(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, role := range map[string]Role{"WORKER": RoleWorker, "SUBMITTER": RoleSubmitter} {
		p, err := PermissionsFor(role)
		if err != nil {
			t.Fatal(err)
		}
		block := "  " + strings.ReplaceAll(name+" = "+p.Config(), "\n", "\n  ")
		if !strings.Contains(string(doc), block) {
			t.Errorf("docs/fleet.md does not show the %s permissions as fleet.PermissionsFor gives them:\n%s", role, block)
		}
	}
	if _, err := PermissionsFor("admin"); err == nil {
		t.Error("an unknown role got permissions")
	}
}
