package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGoCacheProgram: the cache program answers the go command's
// protocol: an entry is read from the repository's cache first, then
// from the user's, whose files it never touches; what is put goes to the
// repository's cache, in the go command's own format.
func TestGoCacheProgram(t *testing.T) {
	own, user := filepath.Join(t.TempDir(), "own"), t.TempDir()
	id := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	plant := func(dir string, action, output []byte, body string) {
		t.Helper()
		for _, f := range []struct {
			p, data string
		}{
			{goCacheFile(dir, output, "d"), body},
			{goCacheFile(dir, action, "a"), fmt.Sprintf("v1 %x %x %20d %20d\n", action, output, len(body), time.Now().UnixNano())},
		} {
			mustWrite(t, f.p, f.data)
		}
	}
	plant(user, id(1), id(0xa1), "user's one")
	plant(user, id(2), id(0xa2), "user's two")
	plant(own, id(2), id(0xb2), "own two")
	old := time.Now().Add(-48 * time.Hour)
	userFile := goCacheFile(user, id(1), "a")
	if err := os.Chtimes(userFile, old, old); err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	req := func(r goCacheRequest, body string) {
		enc.Encode(r)
		in.WriteString("\n")
		if body != "" {
			fmt.Fprintf(&in, "%q\n", base64.StdEncoding.EncodeToString([]byte(body)))
		}
	}
	req(goCacheRequest{ID: 1, Command: "get", ActionID: id(1)}, "")
	req(goCacheRequest{ID: 2, Command: "get", ActionID: id(2)}, "")
	req(goCacheRequest{ID: 3, Command: "get", ActionID: id(3)}, "")
	req(goCacheRequest{ID: 4, Command: "put", ActionID: id(3), OutputID: id(0xb3), BodySize: int64(len("put three"))}, "put three")
	req(goCacheRequest{ID: 5, Command: "get", ActionID: id(3)}, "")
	req(goCacheRequest{ID: 6, Command: "close"}, "")
	var out bytes.Buffer
	c := goCache{own: own, trusted: []string{user}, now: time.Now}
	if err := c.serve(&in, &out); err != nil {
		t.Fatal(err)
	}
	res := map[int64]goCacheResponse{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r goCacheResponse
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		res[r.ID] = r
	}
	read := func(r goCacheResponse) string {
		data, _ := os.ReadFile(r.DiskPath)
		return string(data)
	}
	if r := res[0]; strings.Join(r.KnownCommands, ",") != "get,put,close" {
		t.Errorf("handshake %+v", r)
	}
	for _, tt := range []struct {
		id   int64
		want string
	}{{1, "user's one"}, {2, "own two"}, {5, "put three"}} {
		if r := res[tt.id]; r.Miss || r.Err != "" || read(r) != tt.want || r.Size != int64(len(tt.want)) {
			t.Errorf("request %d: %+v reads %q, want %q", tt.id, r, read(r), tt.want)
		}
	}
	if r := res[3]; !r.Miss {
		t.Errorf("request 3 is no miss: %+v", r)
	}
	if r := res[4]; r.Err != "" || !strings.HasPrefix(r.DiskPath, own+"/") {
		t.Errorf("put: %+v", r)
	}
	if r, ok := res[6]; !ok || r.Err != "" {
		t.Errorf("close: %+v", r)
	}
	// The put is in the go command's own format, for a go that reads the
	// cache itself.
	if out, size, _, ok := readGoCacheEntry(own, id(3)); !ok || !bytes.Equal(out, id(0xb3)) || size != int64(len("put three")) {
		t.Errorf("the put's entry: %x %d %v", out, size, ok)
	}
	if fi, err := os.Stat(userFile); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("the user's entry was touched: %v %v", fi.ModTime(), err)
	}
}

// TestBuildCacheOverUsers: a command builds with its repository's cache
// over the user's, read-only: the standard library comes from the
// user's cache (read-only to every command: TestUserCachesNeverWritable),
// what it builds goes to the repository's. A command that replaced the repository's build cache
// by a symlink does not make the next command's cache the link's target.
func TestBuildCacheOverUsers(t *testing.T) {
	cmd := exec.Command("go", "list", "-export", "-f", "{{.Export}}", "fmt")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output() // the user's own build: their cache holds fmt
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	userFmt := strings.TrimSpace(string(out))
	userCache := filepath.Dir(filepath.Dir(userFmt))
	t.Setenv("GOCACHE", userCache)
	f := newFixture(t)
	if st := f.sb.Probe(context.Background()); !st.Available || !f.sb.goCacheProg.Load() {
		t.Fatalf("probe: %v; cache program %v", st, f.sb.goCacheProg.Load())
	}
	mustWrite(t, filepath.Join(f.dir, "go.mod"), "module example.com/p\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(f.dir, "main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built\", 7*6) }\n")
	own := filepath.Join(t.TempDir(), "own")
	build := filepath.Join(own, "go-build")
	spec := func(command string) Spec {
		return Spec{Command: command, Caches: f.sb.DefaultCaches(), OwnCaches: own, BuildCache: build, Timeout: 5 * time.Minute}
	}
	res := f.run(t, spec(`go list -export -f '{{.Export}}' fmt && go run . && go env GOCACHE`))
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	if len(lines) != 3 || lines[0] != userFmt || lines[1] != "built 42" || lines[2] != build {
		t.Errorf("want fmt from the user's cache (%s), the program's output and the repository's cache (%s): %q", userFmt, build, lines)
	}
	if ents, err := os.ReadDir(build); err != nil || len(ents) == 0 {
		t.Errorf("the repository's build cache was not written: %v", err)
	}
	// A command swaps the repository's build cache for a link to a folder
	// it can only read (one of the user's caches); the next command's
	// cache is still the repository's, and works.
	target := t.TempDir()
	res = f.run(t, Spec{Command: fmt.Sprintf("rm -rf %q && ln -s %q %q && echo swapped", build, target, build), OwnCaches: own})
	if !strings.Contains(res.Stdout, "swapped") {
		t.Fatalf("the swap: %s %s", res.Stdout, res.Stderr)
	}
	next := spec(`touch "$GOCACHE/planted"; go run .`)
	next.Caches = append(next.Caches, target)
	if res := f.run(t, next); res.ExitCode != 0 || res.Stdout != "built 42\n" {
		t.Errorf("the command after the swap: exit %d: %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if _, err := os.Lstat(filepath.Join(target, "planted")); err == nil {
		t.Errorf("a command wrote through the link it put in place of the build cache")
	}
}
