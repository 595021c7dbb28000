package review

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace/git"
)

// gitRun runs git in dir for the test's setup.
func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// diffBackend is the review's Backend over a real repository's diff
// between two branches, as the workflow's review backend gives it.
type diffBackend struct {
	storeBackend
	patch string
}

func (b *diffBackend) Diff(context.Context) (string, error) { return b.patch, nil }

// TestGetDiffEgress: a branch adding a Slack token and an AWS key (in
// code, in a .env the branch commits, in a JSON fixture) is reviewed; the
// patch get_diff hands the model holds neither, and stays a valid JSON
// result with the rest of the diff.
func TestGetDiffEgress(t *testing.T) {
	slack := "xoxb-" + "1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	aws := "AKIA" + "QYLPMN5HHHFPZAM2"
	awsSecret := "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY1"
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-qm", "base")
	gitRun(t, dir, "checkout", "-qb", "feature")
	files := map[string]string{
		"notify.go":    "package main\n\nconst slackToken = \"" + slack + "\"\nconst awsKey = \"" + aws + "\"\n\nfunc notify() {}\n",
		".env":         "AWS_ACCESS_KEY_ID=" + aws + "\nAWS_SECRET_ACCESS_KEY=" + awsSecret + "\nSLACK_TOKEN=" + slack + "\n",
		"fixture.json": `{"aws": "` + aws + `", "slack": "` + slack + `"}` + "\n",
	}
	for name, content := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	gitRun(t, dir, "add", "-f", ".")
	gitRun(t, dir, "commit", "-qm", "add notifications")
	repo, err := git.Open(context.Background(), dir, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := repo.Diff(context.Background(), "main", "feature")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Patch, slack) || !strings.Contains(d.Patch, aws) {
		t.Fatalf("the patch should carry the secrets before the gate: %s", d.Patch)
	}
	b := &diffBackend{storeBackend: *newStoreBackend(t), patch: d.Patch}
	res, err := callTool(t, b, "get_diff", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{slack, aws, awsSecret} {
		if strings.Contains(res.Output, secret) {
			t.Errorf("get_diff gave the model a secret (%.8s…): %s", secret, res.Output)
		}
	}
	var got struct {
		Diff string `json:"diff"`
	}
	if err := json.Unmarshal([]byte(res.Output), &got); err != nil {
		t.Fatalf("get_diff's result is no longer JSON: %v: %s", err, res.Output)
	}
	for _, keep := range []string{"func notify() {}", "diff --git a/notify.go b/notify.go", "+package main"} {
		if !strings.Contains(got.Diff, keep) {
			t.Errorf("the redacted diff lost %q: %s", keep, got.Diff)
		}
	}
}
