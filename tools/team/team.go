// Package team is the coding-team tool catalog (../shared/spec/coding-team-tools.md):
// the tools a job agent uses to work on its own ai/… branch in its own
// worktree, patch, test, lint, commit and escalate to a human.
//
// Tools(job, deps) returns the job agent's whole set, Registry(job, deps)
// the same as a tools.Registry: read_file, search_code, list_files,
// get_repo_state, create_branch, apply_patch, commit_changes,
// record_analysis, create_plan, request_human_review, semantic_search,
// find_files, web_search (only when deps.Tools.Web is configured), and the
// verification tools run_tests, run_lint and read_lints. Where the
// workflow agents' tools of the same name answer in another shape
// (read_file, search_code, find_files, semantic_search, apply_patch), the
// team's own registration is used: a role's set decides which shape its
// model sees, and a set never holds two tools of one name. Every tool runs
// through the tools engine (guardrails, hooks, confirmation, dry-run,
// secret gate, sandbox); its description ends with its cost hint and
// typical duration (tools.CostOf).
//
// The session the tools run in has the job's linked worktree as its root
// (the job runner creates it detached at the base); create_branch puts it
// on ai/<first 8 characters of the job id>/<name>. Nothing is ever checked
// out in the user's working tree: create_branch and commit_changes refuse
// to run in a repository's main working tree. The session's
// SessionConfig.Context (tools.ToolContext) tells hooks and logs the job.
package team

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/verify"
)

// Deps are what the catalog needs besides the job.
type Deps struct {
	// Tools are the shared tools' dependencies (the web search provider:
	// nil leaves web_search out).
	Tools tools.Deps
	// RefLock serialises the ref updates (branch creation, commits) of the
	// jobs of one repository; nil gives the catalog a lock of its own.
	RefLock sync.Locker
}

// Tools returns the job agent's tools for job (nil only to list them: the
// tools that need a job then answer that there is none).
func Tools(job Job, deps Deps) ([]tools.Tool, error) {
	lock := deps.RefLock
	if lock == nil {
		lock = &sync.Mutex{}
	}
	shared, err := tools.ForRole("pulsing", deps.Tools)
	if err != nil {
		return nil, err
	}
	checks := newCheckCache()
	if job != nil {
		checks.base = job.BaseCommit()
	}
	var verifiers []verifier
	for _, v := range []verifier{{name: "run_tests", kind: verify.Test}, {name: "run_lint", kind: verify.Lint}} {
		t, ok := shared.Get(v.name)
		if !ok {
			return nil, errors.New("the shared tools have no " + v.name)
		}
		v.tool = checks.recording(t)
		verifiers = append(verifiers, v)
	}
	ts := []tools.Tool{
		newReadFile(), newSearchCode(), newListFiles(), newGetRepoState(),
		newCreateBranch(job, lock), newApplyPatch(job), newCommitChanges(job, lock, checks, verifiers),
		newRecordAnalysis(job), newCreatePlan(job), newRequestHumanReview(job),
		newSemanticSearch(), newFindFiles(), tools.NewReadLints(), verifiers[0].tool, verifiers[1].tool,
	}
	// The code intelligence tools (issue 33): jobs write, so rename_symbol too.
	for _, name := range []string{"go_to_definition", "find_references", "hover", "document_symbols", "workspace_symbols", "call_hierarchy", "rename_symbol"} {
		t, ok := shared.Get(name)
		if !ok {
			return nil, errors.New("the shared tools have no " + name)
		}
		ts = append(ts, t)
	}
	if deps.Tools.Web != nil {
		if t := tools.NewWebSearch(deps.Tools.Web); t != nil {
			ts = append(ts, t)
		}
	}
	for i, t := range ts {
		ts[i] = tools.WithCost(t)
	}
	return ts, nil
}

// Registry is Tools as a registry (what `autarch tools --agent job` lists).
func Registry(job Job, deps Deps) (*tools.Registry, error) {
	ts, err := Tools(job, deps)
	if err != nil {
		return nil, err
	}
	return tools.NewRegistry(ts...)
}

// failure is a team tool's error result: the tool's own falsy fields, the
// spec's error code and a message saying what to do.
func failure(code, msg string, fields map[string]any) tools.Result {
	out := map[string]any{}
	for k, v := range fields {
		out[k] = v
	}
	out["code"], out["error"] = code, msg
	return tools.JSONResult(out, true)
}

// maxResults is a search's maxResults parameter n: def when not given;
// ok false (res the answer, with zero's fields) when out of 1..most.
func maxResults(n *int, def, most int, zero map[string]any) (max int, res tools.Result, ok bool) {
	if n == nil {
		return def, tools.Result{}, true
	}
	if *n < 1 || *n > most {
		return 0, failure("invalid_query", fmt.Sprintf("maxResults must be between 1 and %d", most), zero), false
	}
	return *n, tools.Result{}, true
}

// noJob answers a call made without a job (a listing's tools).
func noJob(name string) tools.Result {
	return tools.ErrorResult(name + " works for a job only: start one with `autarch job` or the palette's Autarch: Start Job")
}

// rawArgs re-encodes a parameter struct (for delegating to another tool).
func rawArgs(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
