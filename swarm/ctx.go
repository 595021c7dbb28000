package swarm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Put modes (ctx_put's mode).
const (
	ModeSet       = "set"        // write whatever is there
	ModeIfAbsent  = "if_absent"  // only when the key does not exist (KV Create)
	ModeIfVersion = "if_version" // only when the key is at the expected version (KV Update)
)

// PutResult is ctx_put's answer: {ok, key, version} or
// {ok:false, error:"version_mismatch", version} with the key's current
// version (0: the key does not exist).
type PutResult struct {
	OK      bool   `json:"ok"`
	Key     string `json:"key"`
	Version uint64 `json:"version"`
	Error   string `json:"error,omitempty"`
}

// Entry is ctx_get's answer; Value is null and Version 0 for a missing key.
type Entry struct {
	Key     string          `json:"key"`
	Value   json.RawMessage `json:"value"`
	Version uint64          `json:"version"`
}

// MaxValue bounds a context value (NATS messages are at most 1 MB).
const MaxValue = 512 << 10

// VersionMismatch is PutResult.Error when a conditional put lost.
const VersionMismatch = "version_mismatch"

// keyRE is the NATS KV key charset.
var keyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-/_=.a-zA-Z0-9]+$`) })

// ValidKey says what is wrong with a context key ("" when it is valid).
func ValidKey(key string) string {
	switch {
	case key == "":
		return "key is empty: give a key such as Agent.task"
	case len(key) > 512:
		return "key is longer than 512 characters"
	case !keyRE().MatchString(key):
		return fmt.Sprintf("key %q has characters a key cannot hold: use letters, digits and - / _ = . (e.g. Gemini.list_code_files)", key)
	case strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") || strings.Contains(key, ".."):
		return fmt.Sprintf("key %q has an empty segment: dots separate non-empty parts (e.g. Gemini.list_code_files)", key)
	}
	return ""
}

// Refusal is a call the swarm refuses: the caller's mistake or a lost
// race, answered to the model as {error, code, message} (error a stable
// token, code an HTTP-like status, message what happened and what to do).
// Other errors are the infrastructure's.
type Refusal struct {
	Err        string     `json:"error"`
	Code       int        `json:"code"`
	Message    string     `json:"message,omitempty"`
	ID         string     `json:"id,omitempty"`
	ClaimedBy  string     `json:"claimed_by,omitempty"`
	LeaseUntil *time.Time `json:"lease_until,omitempty"`
}

func (r *Refusal) Error() string { return r.Err + ": " + r.Message }

// Refusal tokens.
const (
	ErrInvalid      = "invalid_argument" // 400
	ErrNotFound     = "not_found"        // 404
	ErrNotClaimed   = "not_claimed"      // 409: queued, nobody holds it
	ErrNotHolder    = "not_holder"       // 409: another agent holds the lease
	ErrLeaseExpired = "lease_expired"    // 409: the caller's lease ran out
	ErrAlreadyDone  = "already_done"     // 409
	ErrClaimed      = "already_claimed"  // 409: coord_claim of a leased item
)

func badInput(format string, a ...any) error {
	return &Refusal{Err: ErrInvalid, Code: 400, Message: fmt.Sprintf(format, a...)}
}

// Put stores value (a JSON document) under key. mode is set (""
// included), if_absent or if_version (with expected, the version the
// caller read). A lost condition is a PutResult with OK false, not an error.
func (s *Swarm) Put(ctx context.Context, key string, value json.RawMessage, mode string, expected uint64) (PutResult, error) {
	if msg := ValidKey(key); msg != "" {
		return PutResult{}, badInput("%s", msg)
	}
	if len(value) > MaxValue {
		return PutResult{}, badInput("value of %s is %d bytes; a value holds at most %d: store a summary, or split it over several keys", key, len(value), MaxValue)
	}
	if !json.Valid(value) {
		return PutResult{}, badInput("value of %s is not valid JSON", key)
	}
	var rev uint64
	var err error
	switch mode {
	case "", ModeSet:
		rev, err = s.kv.Put(ctx, key, value)
	case ModeIfAbsent:
		rev, err = s.kv.Create(ctx, key, value)
	case ModeIfVersion:
		if expected == 0 {
			return PutResult{}, badInput("mode if_version needs expected_version (the version ctx_get returned; if_absent creates a key)")
		}
		rev, err = s.kv.Update(ctx, key, value, expected)
	default:
		return PutResult{}, badInput("mode %q: use set, if_absent or if_version", mode)
	}
	if isConflict(err) {
		cur, gerr := s.version(ctx, key)
		if gerr != nil {
			return PutResult{}, gerr
		}
		return PutResult{OK: false, Key: key, Version: cur, Error: VersionMismatch}, nil
	}
	if err != nil {
		return PutResult{}, fmt.Errorf("ctx_put %s: %w", key, err)
	}
	return PutResult{OK: true, Key: key, Version: rev}, nil
}

// isConflict reports a lost Create or Update.
func isConflict(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, jetstream.ErrKeyExists) {
		return true
	}
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// version is the key's current revision (0 when missing or deleted).
func (s *Swarm) version(ctx context.Context, key string) (uint64, error) {
	e, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("ctx_get %s: %w", key, err)
	}
	return e.Revision(), nil
}

// Get reads key; a missing key is an Entry with a null value and version 0.
func (s *Swarm) Get(ctx context.Context, key string) (Entry, error) {
	if msg := ValidKey(key); msg != "" {
		return Entry{}, badInput("%s", msg)
	}
	e, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Entry{Key: key, Value: json.RawMessage("null")}, nil
	}
	if err != nil {
		return Entry{}, fmt.Errorf("ctx_get %s: %w", key, err)
	}
	return Entry{Key: key, Value: json.RawMessage(e.Value()), Version: e.Revision()}, nil
}

// Keys lists the keys that start with prefix, sorted.
func (s *Swarm) Keys(ctx context.Context, prefix string) ([]string, error) {
	keys, err := s.kv.Keys(ctx, jetstream.MetaOnly())
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ctx_keys: %w", err)
	}
	out := []string{}
	for _, k := range keys {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out, nil
}
