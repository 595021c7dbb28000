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
// Worktrees prepared ahead (PrepareWorktrees: fresh checkouts a workflow's
// or a parallel pulse's worktree takes instead of checking a big tree out
// while the user waits) wait under <worktree root>/.prepared, each handed
// out once.
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
// Everything an agent touched is hostile, including when Autarch itself
// acts on it: the trees this package runs git on are written by agents
// (shell commands and the tests run_tests runs, inside the sandbox), so no
// git process of ours may run a program they planted. Every command runs
// through the git CLI with exec.CommandContext (runner, run.go):
//
//   - no inherited GIT_* variable (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT,
//     GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, GIT_DIR, …), nor PAGER,
//     SSH_ASKPASS, EDITOR; GIT_CONFIG_NOSYSTEM, GIT_ATTR_NOSYSTEM,
//     GIT_NO_REPLACE_OBJECTS, GIT_TERMINAL_PROMPT=0, GIT_OPTIONAL_LOCKS=0;
//   - no global configuration either (GIT_CONFIG_GLOBAL=/dev/null): the
//     drivers of the user's ~/.gitconfig (lfs, clean/smudge filters,
//     textconv, diff.external) do not run on agent content. Only harmless
//     global settings (safe.directory, core.excludesFile, core.autocrlf,
//     core.eol, core.safecrlf) are read once and passed with -c. The
//     configuration left is the repository's own file, which no sandbox can
//     write, so a driver an agent's .gitattributes selects runs only if the
//     user defined it in the repository's config (their choice, e.g. LFS).
//     The conversions built into git (ident, text/eol,
//     working-tree-encoding) need no driver: where the work tree's
//     .gitattributes are not the workflow base's, a checkpoint stages the
//     raw bytes the gates tested and the changed paths name an edit a
//     conversion would take back (attributes.go);
//   - -c settings (safeConfig): hooks off (core.hooksPath=/dev/null),
//     fsmonitor off, no submodule recursion and no git process started in a
//     nested repository (diff.ignoreSubmodules=all, status with
//     --ignore-submodules=all), no pager, askpass, ssh or credential
//     helper, no ext:: transport, no background maintenance, no untracked
//     cache from the (agent-writable) index; diff, log and show get
//     --no-ext-diff and --no-textconv;
//   - the repository is named, never discovered: GIT_DIR, GIT_COMMON_DIR
//     and GIT_WORK_TREE for the work tree the command runs in, found among
//     the repository's own (its main work tree and the linked worktrees
//     registered in <common>/worktrees). A .git directory or file an agent
//     planted, a core.worktree in it, or a nested repository is never the
//     repository acted on. Open discovers once, from the user's folder when
//     a session starts; OpenWorktree opens a known common directory.
//
// Before a checkpoint or any commit, StageAll leaves out nested
// repositories (found in git's own list of untracked files, no extra walk),
// gitlinks the base commit does not have, git directories an agent made
// and the worktree files a nested repository's config includes, and
// reports them
// (Checkpoint.Excluded, Excluded.Message): git add would record a nested
// repository as a gitlink and start a git status inside every gitlink, with
// that repository's config. Commits are made with commit-tree (which runs
// no hooks) under a fixed identity, "Autarch <autarch@localhost>" unless
// Config.Identity says otherwise, with signing off. Commands that mutate
// run in our worktree or only write refs under our namespaces; commands
// run in the user's folder are read-only plumbing (rev-parse, diff of
// commits, for-each-ref, worktree add/list/remove).
//
// # git CLI and go-git
//
// The git CLI does worktree add/list/remove (go-git cannot), staging and
// status (go-git's Status is ~15× slower on large trees), commits, ref
// transactions and diffs (rename detection, exact unified output). go-git
// reads commit objects in process (Commits, Commit), opening linked
// worktrees with EnableDotGitCommonDir.
package git
