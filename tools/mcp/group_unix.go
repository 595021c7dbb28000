//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup starts a server's process in a process group of its own, so
// that what it starts (npx → node, sh -c → the real server) can be
// stopped with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills what is left of a server's process group once the
// server is stopped (or exited): a wrapper's children outlive it
// otherwise.
func killGroup(cmd *exec.Cmd) {
	if cmd != nil && cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // ESRCH when nothing is left
	}
}
