// Package git performs the repository operations of a workflow: branches,
// linked worktrees, checkpoint and recovery commits, diffs. It never touches
// the user's HEAD, index or working tree.
//
// # Layout
//
// A workflow named w (ValidateName) has:
//
//   - the workflow branch autarch/w, created from the user's base branch;
//   - a linked worktree at <git-common-dir>/autarch/worktrees/w (configurable
//     with Config.WorktreeRoot). It lives with the repository's own state:
//     outside the user's folder's visible files, on the same file system,
//     removed with the repository, never mistaken for another clone's. `git
//     worktree list` shows it; tools that skip .git (go ./..., ripgrep, the
//     index walker) never see it;
//   - one branch per running or kept pulse, autarch-pulse/w/<pulse-id>.
//
// The specification nests pulse branches under the workflow branch
// (autarch/w/pulse-1), which git cannot store: a ref cannot be a file and a
// directory at once. Pulse branches therefore live in their own namespace,
// whose first component differs from the workflow's.
//
// # Pulses
//
// At rest the worktree is on the workflow branch. StartPulse creates the
// pulse branch at the workflow head and points the worktree's HEAD at it.
// CompletePulse stages everything (git add --all, minus the preflight
// artifacts recorded with RecordArtifacts), commits the tree on top of the
// workflow head with the agent's Conventional Commit summary (an empty
// commit for an empty pulse), fast-forwards the workflow branch and deletes
// the pulse branch in one ref transaction, and hard-resets the worktree —
// only ours — to the new head. RecoveryCheckpoint commits uncommitted work of
// a failed or stopped pulse on the kept pulse branch (message trailer
// RecoveryTrailer) and returns the worktree to rest; ResumePulse continues
// from it. Nothing ever runs git clean: untracked files (dependencies,
// build output) survive between pulses.
//
// # Safety
//
// Every command runs through the git CLI with exec.CommandContext,
// GIT_TERMINAL_PROMPT=0, GIT_OPTIONAL_LOCKS=0 and without inherited
// GIT_DIR/GIT_INDEX_FILE-style variables. Each gets -c core.hooksPath=/dev/null
// so no hook of the user's repository runs on our operations (worktree add's
// post-checkout, reference-transaction, …), and commits are made with
// commit-tree (which runs no hooks) under a fixed identity, "Autarch
// <autarch@localhost>" unless Config.Identity says otherwise, with signing
// off. Commands that mutate run in our worktree or only write refs under
// our namespaces; commands run in the user's folder are read-only plumbing
// (rev-parse, diff of commits, for-each-ref, worktree add/list/remove).
//
// # git CLI and go-git
//
// The git CLI does worktree add/list/remove (go-git cannot), staging and
// status (go-git's Status is ~15× slower on large trees), commits, ref
// transactions and diffs (rename detection, exact unified output). go-git
// reads commit objects in process (Commits, Commit), opening linked
// worktrees with EnableDotGitCommonDir.
package git
