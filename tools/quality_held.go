package tools

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace"
)

// ChangedFunc lists the files of the worktree that differ from what its
// run commits (a pulse: from the pulse's base; a swarm: from the commit
// its gates test), relative to the worktree.
type ChangedFunc func(ctx context.Context) ([]string, error)

// HeldGates runs the quality gates over changed and then checks that the
// tree they tested is still the tree that is committed (before is what
// tree listed just before the call; tree lists it again after the
// gates): the gates run
// the project's own code (tests, build steps), which may write the
// worktree — a test that rewrites a source file once the package that
// holds it is compiled, or a process it leaves running — and a
// checkpoint made afterwards would hold files no gate tested: a pass
// over code that does not build. What tree lists before and after the
// gates, and each listed file's version (its stamp, and its content
// when the stamp moved), must be equal; otherwise the run fails with a
// report naming the files and what to do.
func (s *Session) HeldGates(ctx context.Context, g verify.Gates, changed, before []string, tree ChangedFunc) (verify.GateRun, error) {
	was := s.treePrint(before)
	run := s.QualityGates(ctx, g, changed)
	if ctx.Err() != nil {
		return run, ctx.Err()
	}
	after, err := tree(ctx)
	if err != nil {
		return run, err
	}
	if moved := was.moved(s.root, after); len(moved) > 0 {
		run.Skipped = ""
		run.Reports = append(run.Reports, movedReport(moved))
	}
	return run, nil
}

// CheckTree is the Check of the report HeldGates adds when the gates
// changed the tree they tested.
const CheckTree = "tree unchanged by the gates"

// movedReport is the failing report of files the gates changed.
func movedReport(moved []string) verify.Report {
	const list = 10
	names := moved
	more := ""
	if len(names) > list {
		names, more = names[:list], fmt.Sprintf(" and %d more", len(moved)-list)
	}
	msg := fmt.Sprintf("%s%s changed while the quality gates ran (written by a test, a build step or a process one left running): "+
		"the commit would hold files no gate tested. Put back what was changed, make tests write under a temporary folder "+
		"(t.TempDir, tmp_path, os.tmpdir) and builds outside the worktree or into ignored folders (.gitignore); the gates then run again.", strings.Join(names, ", "), more)
	return verify.Report{Check: CheckTree, Kind: verify.Test, Dir: ".", Status: verify.StatusFail, Failed: 1,
		Failures: []verify.TestFailure{{Name: "the worktree", Message: msg}}}
}

// treePrint is what a list of the worktree's files was: each file's
// version (nil: missing or unreadable).
type treePrint map[string]*fileVersion

// fileVersion is one version of a file: what it is (a regular file, a
// symlink, something else), its stamp, and a regular file's content hash.
type fileVersion struct {
	mode  fs.FileMode
	stamp workspace.Stamp
	sum   [sha256.Size]byte
}

// treePrint records the versions of paths in the session's root.
func (s *Session) treePrint(paths []string) treePrint {
	p := make(treePrint, len(paths))
	for _, rel := range paths {
		p[rel] = versionOf(s.root, rel, nil)
	}
	return p
}

// versionOf is rel's version in root; for a regular file whose stamp is
// old's, old's content hash is taken without reading it again. nil when
// rel is missing or cannot be read.
func versionOf(root *workspace.Root, rel string, old *fileVersion) *fileVersion {
	fi, err := root.Lstat(rel)
	if err != nil {
		return nil
	}
	v := &fileVersion{mode: fi.Mode().Type(), stamp: workspace.StampOf(fi)}
	if !fi.Mode().IsRegular() {
		return v
	}
	if old != nil && old.mode == v.mode && old.stamp == v.stamp && v.stamp != (workspace.Stamp{}) {
		v.sum = old.sum
		return v
	}
	f, _, err := root.OpenRegular(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil
	}
	h.Sum(v.sum[:0])
	return v
}

// moved lists the files whose version differs between p and now (paths
// listed then, now, or both), sorted.
func (p treePrint) moved(root *workspace.Root, now []string) []string {
	var out []string
	seen := make(map[string]bool, len(now))
	for _, rel := range now {
		seen[rel] = true
		old, listed := p[rel]
		if !listed {
			out = append(out, rel)
			continue
		}
		v := versionOf(root, rel, old)
		if !sameVersion(old, v) {
			out = append(out, rel)
		}
	}
	for rel := range p {
		if !seen[rel] {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// sameVersion: both missing, or the same kind of file with the same
// content (a symlink or a special file: the same stamp).
func sameVersion(a, b *fileVersion) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case a.mode != b.mode:
		return false
	case a.mode.IsRegular():
		return a.sum == b.sum
	default:
		return a.stamp == b.stamp
	}
}
