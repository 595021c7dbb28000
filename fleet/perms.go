package fleet

import (
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
)

// Role is what a NATS user does in the fleet.
type Role string

// Roles of the fleet's NATS users. The operator (budgets, the rate limit:
// autarch fleet budget and limits) is a user with full permissions.
const (
	// RoleWorker claims runs, renews leases, publishes events, records
	// pushes and spend; it cannot answer a run's cards and questions.
	RoleWorker Role = "worker"
	// RoleSubmitter queues, stops, resumes and follows runs and answers
	// their cards and questions.
	RoleSubmitter Role = "submitter"
)

// SubjectPermission allows subjects and denies some of them (a deny wins),
// as nats-server's user permissions do.
type SubjectPermission struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Permissions are a NATS user's publish and subscribe permissions.
type Permissions struct {
	Publish   SubjectPermission `json:"publish"`
	Subscribe SubjectPermission `json:"subscribe"`
}

// jsDestructive are the JetStream API calls no worker or submitter makes:
// deleting streams or their messages, purging the queue, the events and
// the records (a worker purges the chunks of run states it replaced, in
// the state object store), and the server's and the cluster's
// administration.
var jsDestructive = []string{
	"$JS.API.STREAM.DELETE.>", "$JS.API.STREAM.MSG.DELETE.>",
	"$JS.API.STREAM.PURGE." + queueStream, "$JS.API.STREAM.PURGE." + eventsStream,
	"$JS.API.STREAM.PURGE.KV_" + runsBucket, "$JS.API.STREAM.PURGE.KV_" + workersBucket, "$JS.API.STREAM.PURGE.KV_" + limitsBucket,
	"$JS.API.ACCOUNT.PURGE.>", "$JS.API.SERVER.>", "$JS.API.META.>",
}

// PermissionsFor is the permission set of a fleet role: what docs/fleet.md
// shows and what the tests give the users of a real nats-server.
//
// A worker publishes on the JetStream API (its consumers, the buckets'
// reads), acks queue messages, writes run records, worker heartbeats,
// rate windows, spend and run states, and publishes events; it never publishes on
// autarch.fleet.answers.>, so it cannot approve its own cards or answer
// its run's questions. A submitter queues runs, writes their records
// (stop, resume) and publishes answers. Neither may publish on _INBOX.>
// (no one's requests are theirs to answer) nor change budgets or the
// rate limit (the operator's). A worker also refuses answers that a
// server republished from a stream or delivered from a consumer
// (AnswersOf), which its JetStream API permission could set up.
func PermissionsFor(role Role) (Permissions, error) {
	switch role {
	case RoleWorker:
		return Permissions{
			Publish: SubjectPermission{
				Allow: []string{"$JS.API.>", "$JS.ACK." + queueStream + ".>", "$KV." + runsBucket + ".>", "$KV." + workersBucket + ".>",
					"$KV." + ratesBucket + ".>", "$KV." + limitsBucket + "." + spentPrefix + ">", "$O." + stateBucket + ".>", eventsPrefix + ".>"},
				Deny: jsDestructive,
			},
			Subscribe: SubjectPermission{Allow: []string{"_INBOX.>", answersPrefix + ".>"}},
		}, nil
	case RoleSubmitter:
		return Permissions{
			Publish: SubjectPermission{
				Allow: []string{"$JS.API.>", queuePrefix + ".>", "$KV." + runsBucket + ".>", answersPrefix + ".>"},
				Deny:  jsDestructive,
			},
			Subscribe: SubjectPermission{Allow: []string{"_INBOX.>"}},
		}, nil
	}
	return Permissions{}, fmt.Errorf("fleet: no role %q: use %s or %s", role, RoleWorker, RoleSubmitter)
}

// Config writes p as a nats-server configuration block
// (`permissions: {...}` of a user, or a variable of an authorization
// block).
func (p Permissions) Config() string {
	var b strings.Builder
	b.WriteString("{\n")
	for _, part := range []struct {
		name string
		sp   SubjectPermission
	}{{"publish", p.Publish}, {"subscribe", p.Subscribe}} {
		fmt.Fprintf(&b, "  %s = {\n", part.name)
		if len(part.sp.Allow) > 0 {
			fmt.Fprintf(&b, "    allow = [%s]\n", quoted(part.sp.Allow))
		}
		if len(part.sp.Deny) > 0 {
			fmt.Fprintf(&b, "    deny  = [%s]\n", quoted(part.sp.Deny))
		}
		b.WriteString("  }\n")
	}
	b.WriteString("}")
	return b.String()
}

func quoted(subjects []string) string {
	q := make([]string, len(subjects))
	for i, s := range subjects {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ", ")
}

// submitterHeader names who sent an answer (Options.User).
const submitterHeader = "Autarch-Submitter"

// AnswersOf subscribes to the lines sent to run r and passes on those it
// accepts: published by a client on the run's own answer subject (not
// republished from a stream, nor delivered by a consumer, nor a request),
// and, when the run names its submitter, sent by that submitter. refused,
// when not nil, hears why a line was dropped.
func (f *Fleet) AnswersOf(r Run, fn func(line string), refused func(why string)) (func(), error) {
	subject := answersPrefix + "." + r.ID
	sub, err := f.nc.Subscribe(subject, func(m *nats.Msg) {
		if why := refuseAnswer(m, subject, r.Spec.Submitter); why != "" {
			if refused != nil {
				refused(why)
			}
			return
		}
		fn(string(m.Data))
	})
	if err != nil {
		return nil, fmt.Errorf("fleet: answers of run %s: %w", r.ID, err)
	}
	return func() { sub.Unsubscribe() }, nil
}

// refuseAnswer says why m is not an answer of the run's submitter ("" when
// it is one).
func refuseAnswer(m *nats.Msg, subject, submitter string) string {
	switch from := m.Header.Get(submitterHeader); {
	case m.Subject != subject:
		return "an answer on " + m.Subject + " is not on the run's answer subject " + subject
	case m.Header.Get(nats.JSStream) != "" || m.Reply != "":
		return "an answer that a stream or a consumer delivered (not the submitter's own) was refused"
	case submitter != "" && from != submitter:
		return fmt.Sprintf("an answer from %q was refused: only the run's submitter %s answers its cards and questions", from, submitter)
	}
	return ""
}
