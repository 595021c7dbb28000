package swarm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Proposal is an agent's fs_write: the full content it wants at Path.
// Agents never write; the arbiter's side reads proposals and records a
// decision for each.
type Proposal struct {
	ID         string    `json:"id"`
	Agent      string    `json:"agent"`
	Path       string    `json:"path"`
	Content    string    `json:"content"`
	CreateDirs bool      `json:"create_dirs"`
	Time       time.Time `json:"ts"`
	Seq        uint64    `json:"seq,omitempty"` // the proposal's stream sequence (set when read)
}

// Decision actions (the arbiter's STRICT JSON "action").
const (
	Approve = "approve"
	Reject  = "reject"
)

// Decision is the arbiter's answer to one proposal.
type Decision struct {
	ProposalID string    `json:"proposal_id"`
	Path       string    `json:"path"`
	Action     string    `json:"action"` // approve | reject
	Notes      string    `json:"notes,omitempty"`
	By         string    `json:"by,omitempty"` // the arbiter (a model's name, "human")
	Applied    bool      `json:"applied,omitempty"`
	Time       time.Time `json:"ts"`
}

// Propose publishes p (its ID and Time are set here) to the proposals
// stream and returns it.
func (s *Swarm) Propose(ctx context.Context, p Proposal) (Proposal, error) {
	if strings.TrimSpace(p.Path) == "" {
		return p, badInput("path is empty: give the file's path relative to the project root")
	}
	p.ID, p.Time = nuid.Next(), s.now().UTC()
	ack, err := s.js.PublishMsg(ctx, &nats.Msg{Subject: s.propSubject(p.ID), Data: mustJSON(p)}, jetstream.WithMsgID("p"+p.ID))
	if err != nil {
		return p, fmt.Errorf("fs_write: publishing the proposal: %w", err)
	}
	p.Seq = ack.Sequence
	return p, nil
}

// Proposals lists every proposal in order, each with its decision (nil
// while pending).
func (s *Swarm) Proposals(ctx context.Context) ([]ProposalState, error) {
	info, err := s.props.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading proposals: %w", err)
	}
	if info.State.Msgs == 0 {
		return nil, nil
	}
	var props []ProposalState
	decided := map[string]*Decision{}
	c, err := s.props.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return nil, fmt.Errorf("reading proposals: %w", err)
	}
	for seen := uint64(0); seen < info.State.Msgs; {
		batch, err := c.Fetch(int(min(info.State.Msgs-seen, 256)), jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return nil, fmt.Errorf("reading proposals: %w", err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			meta, _ := m.Metadata()
			if meta != nil && meta.Sequence.Stream > info.State.LastSeq {
				continue
			}
			if strings.HasPrefix(m.Subject(), s.decisionSubject("")) {
				var d Decision
				if json.Unmarshal(m.Data(), &d) == nil {
					decided[d.ProposalID] = &d
				}
				continue
			}
			var p Proposal
			if json.Unmarshal(m.Data(), &p) == nil {
				if meta != nil {
					p.Seq = meta.Sequence.Stream
				}
				props = append(props, ProposalState{Proposal: p})
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, nats.ErrTimeout) {
			return nil, fmt.Errorf("reading proposals: %w", err)
		}
		if n == 0 {
			break
		}
		seen += uint64(n)
	}
	for i := range props {
		props[i].Decision = decided[props[i].ID]
	}
	return props, nil
}

// ProposalState is a proposal and its decision (nil: pending).
type ProposalState struct {
	Proposal
	Decision *Decision `json:"decision"`
}

// Pending lists the proposals without a decision.
func (s *Swarm) Pending(ctx context.Context) ([]Proposal, error) {
	all, err := s.Proposals(ctx)
	if err != nil {
		return nil, err
	}
	var out []Proposal
	for _, p := range all {
		if p.Decision == nil {
			out = append(out, p.Proposal)
		}
	}
	return out, nil
}

// Decide records d for its proposal: once (a second decision is refused,
// so two arbiters cannot both act on one proposal).
func (s *Swarm) Decide(ctx context.Context, d Decision) error {
	if d.Action != Approve && d.Action != Reject {
		return badInput("action %q: use approve or reject", d.Action)
	}
	if ValidKey(d.ProposalID) != "" {
		return badInput("proposal id %q is not an id", d.ProposalID)
	}
	if _, err := s.props.GetLastMsgForSubject(ctx, s.propSubject(d.ProposalID)); errors.Is(err, jetstream.ErrMsgNotFound) {
		return &Refusal{Err: ErrNotFound, Code: 404, ID: d.ProposalID, Message: "no proposal " + d.ProposalID}
	} else if err != nil {
		return fmt.Errorf("deciding %s: %w", d.ProposalID, err)
	}
	if d.Time.IsZero() {
		d.Time = s.now().UTC()
	}
	// Expect no message on the decision's subject yet: a second decision loses.
	_, err := s.js.PublishMsg(ctx, &nats.Msg{Subject: s.decisionSubject(d.ProposalID), Data: mustJSON(d)},
		jetstream.WithExpectLastSequencePerSubject(0))
	if isConflict(err) {
		return &Refusal{Err: ErrAlreadyDone, Code: 409, ID: d.ProposalID, Message: "proposal " + d.ProposalID + " is already decided"}
	}
	if err != nil {
		return fmt.Errorf("deciding %s: %w", d.ProposalID, err)
	}
	return nil
}
