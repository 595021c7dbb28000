package main

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/autarch-dev/autarch/agent/job"
	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/fleet"
	"github.com/autarch-dev/autarch/workspace/git"
	"github.com/autarch-dev/autarch/workspace/trust"
)

func submitVerb() verb {
	return verb{
		name: "submit",
		usage: "autarch submit (--nats URL [--creds FILE] | --root REPO) --repo GIT_URL [--base REF] [--kind workflow|job] [--mode mechanic|genius] " +
			"[--path quick|full|auto] [--labels a,b] [--name NAME] [--budget USD] [--submitter NAME] [--yes] [--wait] TASK",
		summary: "queue a workflow or job for the fleet's workers; --wait follows it and answers its questions",
		run:     runSubmit,
	}
}

func runSubmit(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("submit", io)
	ff := addFleetFlags(fs)
	repo := fs.String("repo", "", "the git URL workers clone and push the run's branch to")
	base := fs.String("base", "", "the branch or commit to start from (default: the remote's default branch)")
	kindFlag := fs.String("kind", "workflow", "workflow (autarch run) or job (autarch job)")
	mode := fs.String("mode", "", "a job's mode: mechanic or genius")
	path := fs.String("path", "auto", "a workflow's path: quick, full or auto (the scope card's recommendation)")
	labelsFlag := fs.String("labels", "", "comma-separated labels a worker must all have to take the run")
	name := fs.String("name", "", "the workflow's name; its branch is autarch/NAME (default: made from the task)")
	budget := fs.Float64("budget", 0, "stop the run when this many dollars are spent (0: no cap)")
	yes := fs.Bool("yes", false, "approve every card, extension and tool call and answer questions with defaults, on the worker")
	submitter := fs.String("submitter", "", "who submits, for the fleet's budget per submitter (default: the NATS user of --nats, else $USER)")
	wait := fs.Bool("wait", false, "follow the run's events here, answer its questions, exit 0 only when it completes")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	task := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if task == "" || *repo == "" {
		return usageError(io, submitVerb())
	}
	if err := ff.check(); err != nil {
		return fail(io, "submit", 2, err)
	}
	kind, err := fleet.ParseKind(*kindFlag)
	if err == nil && *mode != "" {
		_, err = job.ParseMode(*mode)
	}
	if err == nil && *path != "auto" {
		_, err = workflow.ParsePath(*path)
	}
	labels, lerr := fleet.ParseLabels(*labelsFlag)
	if err == nil {
		err = lerr
	}
	if err != nil {
		return fail(io, "submit", 2, err)
	}
	if !strings.Contains(*repo, "://") && !strings.Contains(*repo, "@") {
		// a path on this machine: the workers' clones are elsewhere
		if abs, err := filepath.Abs(*repo); err == nil {
			*repo = abs
		}
	}
	ff.user = *submitter
	f, closeFleet, err := ff.open(ctx, nil)
	if err != nil {
		return fail(io, "submit", 1, err)
	}
	defer closeFleet()
	spec := fleet.Spec{Kind: kind, Repo: *repo, Base: *base, Mode: *mode, Path: *path, Labels: labels, Name: *name, Task: task,
		Submitter: submitterOf(*submitter, ff.nats), ConfigDigest: trustedDigest(ctx, ff.root), Yes: *yes, Budget: *budget}
	r, err := f.Submit(ctx, spec)
	if err != nil {
		return fail(io, "submit", 1, err)
	}
	fmt.Fprintln(io.out, r.ID)
	if !*wait {
		fmt.Fprintf(io.err, "autarch: run %s is queued; follow it with: autarch fleet status, stop it with: autarch fleet stop %s\n", r.ID, r.ID)
		return 0
	}
	return followRun(ctx, io, f, r.ID, !*yes)
}

// followRun prints a fleet run's events as autarch run prints its own,
// answers each of its prompts with the next line typed here (when
// answer), and returns the exit code of how it ended: 0 done, 3 stopped
// (resumable), 1 failed.
func followRun(ctx context.Context, io stdio, f *fleet.Fleet, id string, answer bool) int {
	prompts := make(chan struct{}, 64)
	if answer {
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(io.in)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		go func() { // one line per prompt: a line typed ahead waits for its question
			for range prompts {
				select {
				case line, ok := <-lines:
					if !ok {
						return
					}
					f.Answer(id, line)
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	defer close(prompts)
	code := 1
	io.err = editor.Shown(io.err) // the worker's stream: the agent's words
	err := f.Follow(ctx, id, func(ev kernel.Event) bool {
		switch ev.Kind {
		case kernel.EventMessage:
			fmt.Fprintln(io.err, ev.Text)
		case kernel.EventText:
			fmt.Fprint(io.err, ev.Text)
			select {
			case prompts <- struct{}{}:
			default:
			}
		case kernel.EventStatus:
			switch ev.Status {
			case kernel.Done:
				fmt.Fprintf(io.err, "autarch: run %s completed: %s\n", id, ev.Text)
				code = 0
				return false
			case kernel.Stopped:
				fmt.Fprintf(io.err, "autarch: run %s stopped: %s\n", id, ev.Text)
				code = 3
				return false
			case kernel.Failed:
				fmt.Fprintf(io.err, "autarch: run %s failed: %s\n", id, ev.Text)
				return false
			}
			fmt.Fprintf(io.err, "autarch: run %s: %s\n", id, ev.Text)
		}
		return true
	})
	if err != nil {
		fmt.Fprintf(io.err, "autarch: stopped following run %s (%v); it goes on: autarch fleet status shows it\n", id, err)
		return 1
	}
	return code
}

// trustedDigest is the digest of the local checkout's executable
// configuration when this user trusted it ("" otherwise: the workers run
// without hooks). The checkout is --root, else the current folder.
func trustedDigest(ctx context.Context, root string) string {
	if root == "" {
		root = "."
	}
	repo, err := git.Open(ctx, root, git.Config{})
	if err != nil {
		return ""
	}
	cfg, err := trust.Read(repo.Top())
	if err != nil || cfg.Empty() {
		return ""
	}
	st, err := trust.Open()
	if err != nil {
		return ""
	}
	if s, err := st.Check(cfg); err != nil || s != trust.Trusted {
		return ""
	}
	return cfg.Digest()
}
