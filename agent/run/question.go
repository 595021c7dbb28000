package run

import (
	"encoding/json"
	"time"
)

// QuestionKind says what a question waiting on a human is.
type QuestionKind string

// Kinds of questions.
const (
	// QuestionCard: a card to approve or reject (a workflow's scope,
	// research or plan).
	QuestionCard QuestionKind = "card"
	// QuestionApproval: a tool call or an action to allow.
	QuestionApproval QuestionKind = "approval"
	// QuestionReview: a review to read and resolve.
	QuestionReview QuestionKind = "review"
	// QuestionEscalation: an agent asked for a human's review (a job's
	// request_human_review, a swarm's escalation).
	QuestionEscalation QuestionKind = "escalation"
	// QuestionAsk: questions the agent asked in prose.
	QuestionAsk QuestionKind = "question"
)

// QuestionStatus is where a question stands.
type QuestionStatus string

// Question statuses (as the store keeps them).
const (
	QuestionPending   QuestionStatus = "Pending"
	QuestionAnswered  QuestionStatus = "Answered"
	QuestionCancelled QuestionStatus = "Cancelled"
)

// Question is a question waiting on a human, of any kind of run: one
// table of them, so that every surface lists what waits on the user the
// same way, and a restart asks again.
type Question struct {
	ID  string `json:"id"`
	Run Ref    `json:"run"`
	// Kind is the kind of question; Topic is the engine's finer name of
	// it (a workflow's "scope", "plan", "tool_approval", …).
	Kind    QuestionKind    `json:"kind"`
	Topic   string          `json:"topic,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Status  QuestionStatus  `json:"status"`
	Answer  json.RawMessage `json:"answer,omitempty"`
	// CreatedAt and ResolvedAt (zero while pending).
	CreatedAt  time.Time `json:"createdAt"`
	ResolvedAt time.Time `json:"resolvedAt,omitzero"`
}

// Open reports whether the question still waits on a human.
func (q Question) Open() bool { return q.Status == QuestionPending }
