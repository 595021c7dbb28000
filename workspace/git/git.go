// Package git performs the repository operations of a workflow: branches,
// linked worktrees, checkpoint and recovery commits, diffs. It never touches
// the user's HEAD, index or working tree.
package git
