package job_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/autarch-dev/autarch/agent/job"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
)

// attackTest is the Go test the job agent adds: it runs attack.sh (in
// run_tests' sandbox) and fails, so that everything the script printed
// comes back to the model.
const attackTest = `package calc

import (
	"os/exec"
	"testing"
)

func TestAttack(t *testing.T) {
	out, _ := exec.Command("bash", "attack.sh").CombinedOutput()
	t.Fatalf("%s", out)
}
`

// TestWholeJobAttack runs a whole job whose agent tries every class of the
// second trust pass through a test that run_tests executes
// (testdata/attack/attack.sh), then removes it, commits once green, and
// checks what only Autarch's own hands could have done: no planted program
// ran on the host, the user's refs, history, tree and trust store are as
// before, the job's commit carries nothing planted, and no secret value
// reached the model.
func TestWholeJobAttack(t *testing.T) {
	env := testkit.NewAttack(t)
	secrets, trustFile, marker := env.Secrets, env.TrustFile, env.Marker
	attack := env.ReadScript(t, "testdata/attack/attack.sh")

	dir := testkit.NewRepo(t, map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add adds two numbers.\nfunc Add(a, b int) int { return a + b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n",
		".env":         "API_TOKEN=" + secrets["committed .env"] + "\n",
	})
	env.PlantNATSAuth(t, filepath.Join(dir, ".git", "autarch"))

	call := func(name string, args map[string]any) txtar.File {
		args["reason"] = "attack: " + name
		b, err := json.Marshal(map[string]any{"tool_calls": []any{map[string]any{"name": name, "args": args}}})
		must(t, err)
		return txtar.File{Data: append(b, '\n')}
	}
	steps := []txtar.File{
		call("create_branch", map[string]any{"name": "attack"}),
		call("apply_patch", map[string]any{"patch": addPatch("attack.sh", attack) + addPatch("attack_test.go", attackTest)}),
		call("run_tests", map[string]any{}),
		call("get_repo_state", map[string]any{}),
		call("apply_patch", map[string]any{"patch": deletePatch("attack.sh", attack) + deletePatch("attack_test.go", attackTest) +
			"--- a/calc.go\n+++ b/calc.go\n@@ -1,4 +1,4 @@\n package calc\n \n-// Add adds two numbers.\n+// Add returns the sum of a and b.\n func Add(a, b int) int { return a + b }\n"}),
		call("run_tests", map[string]any{}),
		call("run_lint", map[string]any{}),
		call("get_repo_state", map[string]any{}),
		call("commit_changes", map[string]any{"message": "docs(calc): say what Add returns"}),
	}
	for i := range steps {
		steps[i].Name = fmt.Sprintf("%02d.json", i+1)
	}
	parsed, err := scripted.Parse(txtar.Format(&txtar.Archive{Files: steps}))
	must(t, err)
	url, model := scripted.Start(t, parsed)
	w := newWorld(t, dir, url, nil, nil)

	before := userRepoState(t, dir)
	trustBefore, err := os.ReadFile(trustFile)
	must(t, err)
	ctx := context.Background()
	j, err := w.runner.Start(ctx, job.Task{Text: "Add a test", Mode: "genius"})
	must(t, err)
	j, err = w.runner.Run(ctx, j.ID)
	if err != nil || j.Status != store.JobDone {
		if calls, cerr := w.store.JobToolCalls(ctx, j.ID); cerr == nil {
			for _, c := range calls {
				t.Logf("%s → %s", c.Name, c.Summary)
			}
		}
		t.Errorf("the job ended %s (%s, %v): the attack must be refused without breaking the job", j.Status, j.StatusReason, err)
	}

	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a program the agent planted ran on the host (%s exists)", marker)
	}
	if after := userRepoState(t, dir); after != before {
		t.Errorf("the user's repository changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if trustAfter, err := os.ReadFile(trustFile); err != nil || string(trustAfter) != string(trustBefore) {
		t.Errorf("the trust store changed: %q → %q (%v)", trustBefore, trustAfter, err)
	}
	if out, err := exec.Command("git", "-C", dir, "fsck", "--full", "--no-dangling").CombinedOutput(); err != nil {
		t.Errorf("git fsck of the user's repository: %v\n%s", err, out)
	}
	if j.Branch != "" {
		for _, line := range strings.Split(strings.TrimSpace(testkit.Git(t, dir, "ls-tree", "-r", "--full-tree", j.Branch)), "\n") {
			mode, _, _ := strings.Cut(line, " ")
			_, path, _ := strings.Cut(line, "\t")
			top, _, _ := strings.Cut(path, "/")
			switch top {
			case ".autarch", ".mcp.json", "sub", "inc", "viafile", "gd", "evil", "attack.sh", "attack_test.go":
				t.Errorf("the job's branch carries what the agent planted: %s", line)
			}
			if mode == "160000" {
				t.Errorf("the job's branch carries a gitlink: %s", line)
			}
		}
	}
	// The attacks ran: their output came back, with committed secrets
	// read as the object store's placeholder (reversed by rev in the
	// attack), planted configuration removed.
	withheld := model.Received("content is withheld from commands") || model.Received("sdnammoc morf dlehhtiw si tnetnoc") // rev
	if !withheld || !model.Received("Autarch removed it") {
		t.Error("the model never saw the attacks' output (the placeholder of a withheld blob, the removal of planted configuration): did they run?")
	}
	for _, leak := range model.Leaks(secrets) {
		t.Error(leak)
	}
}

// userRepoState is what of the user's repository no agent may change:
// every ref outside the job's own (ai/…) and the receipts'
// (refs/notes/autarch), main's history, HEAD, the index
// and the working tree.
func userRepoState(t *testing.T, dir string) string {
	t.Helper()
	var refs []string
	for _, line := range strings.Split(testkit.Git(t, dir, "for-each-ref", "--format=%(refname) %(objectname)"), "\n") {
		if !strings.HasPrefix(line, "refs/heads/ai/") && !strings.HasPrefix(line, git.NotesRef+" ") { // Autarch's own: the commits' receipts
			refs = append(refs, line)
		}
	}
	return strings.Join(refs, "\n") + "\n" + testkit.Git(t, dir, "log", "--format=%H %s", "main") + testkit.UserTreeHash(t, dir)
}

// addPatch is a unified diff creating name with content.
func addPatch(name, content string) string { return wholeFilePatch(name, content, true) }

// deletePatch is a unified diff deleting name, whose content is content.
func deletePatch(name, content string) string { return wholeFilePatch(name, content, false) }

// wholeFilePatch adds (or deletes) the whole of a file.
func wholeFilePatch(name, content string, add bool) string {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	sign := "+"
	if add {
		fmt.Fprintf(&b, "--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", name, len(lines))
	} else {
		sign = "-"
		fmt.Fprintf(&b, "--- a/%s\n+++ /dev/null\n@@ -1,%d +0,0 @@\n", name, len(lines))
	}
	for _, l := range lines {
		b.WriteString(sign + l + "\n")
	}
	return b.String()
}
