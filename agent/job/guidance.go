package job

import (
	"context"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// ResumeWithGuidance makes a stopped, failed or waiting job run again from
// its last message, as Resume, with the human's guidance (when not blank)
// as the next message its agent reads: "resume the job with more
// guidance" after it stopped asking for it.
func (r *Runner) ResumeWithGuidance(ctx context.Context, ref, guidance string) (store.Job, error) {
	text := strings.TrimSpace(guidance)
	if text == "" {
		return r.Resume(ctx, ref)
	}
	j, err := r.resumable(ctx, ref, "start a new job with your guidance as its task")
	if err != nil {
		return j, err
	}
	// The guidance is added under the job's lock: no run of another process appends meanwhile.
	unlock, err := r.lock(j.ID)
	if err != nil {
		return j, err
	}
	err = r.guide(ctx, j, text)
	unlock()
	if err != nil {
		return j, err
	}
	return r.Resume(ctx, j.ID)
}

// guide adds the human's guidance to a job's conversation: what the last
// run left open is closed first (as a run's restore does), so that the
// guidance is the last message; a job that never ran gets its task with it.
func (r *Runner) guide(ctx context.Context, j store.Job, text string) error {
	history, err := r.restore(ctx, &handle{r: r, job: j})
	if err != nil {
		return err
	}
	msg := "The human resumed the job with this guidance; follow it:\n\n" + text
	if len(history) == 0 {
		msg = firstInput(j, nil) + "\n\n" + msg
	}
	if err := r.save(ctx, j.ID, agent.Message{Role: agent.RoleUser, Content: msg}); err != nil {
		return err
	}
	r.emit(editor.JobEvent{Kind: "guidance", JobID: j.ID, Text: text})
	return nil
}
