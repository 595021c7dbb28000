package workspace

import (
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// refBackup matches a name with a backup suffix; compiled once (compiled
// for each name, it was most of TestPathBlockedMatchesReference's work).
var refBackup = sync.OnceValue(func() *regexp.Regexp {
	var alt []string
	for _, s := range backupSuffixes {
		alt = append(alt, regexp.QuoteMeta(s))
	}
	return regexp.MustCompile(`^(.+?)(` + strings.Join(alt, "|") + `)$`)
})

// refPathBlocked is PathBlocked written plainly, the reference for its
// shortcuts (extension lookup, first-byte and last-byte checks): every
// path element and each of its backup forms against every name pattern
// with path.Match, the whole path's forms against the patterns with a
// slash with doublestar.
func refPathBlocked(patterns []string, rel string) bool {
	backup := refBackup()
	// forms are name and, recursively (four layers), what it is a backup
	// or swap copy of.
	var forms func(name string, layer int) []string
	forms = func(name string, layer int) []string {
		if layer == 4 {
			return []string{name}
		}
		core := name
		if len(core) > 2 && strings.HasPrefix(core, "#") && strings.HasSuffix(core, "#") {
			core = core[1 : len(core)-1]
		}
		var swapped []string
		if m := backup.FindStringSubmatch(core); m != nil {
			core = m[1]
			if (m[2] == ".swp" || m[2] == ".swo" || m[2] == ".swx") && len(core) > 1 && core[0] == '.' {
				swapped = []string{core[1:]}
			}
		}
		if core == name {
			return []string{name}
		}
		return append(append([]string{name}, swapped...), forms(core, layer+1)...)
	}
	parts := strings.Split(rel, "/")
	for _, p := range patterns {
		if strings.Contains(p, "/") {
			dir := strings.TrimSuffix(rel, parts[len(parts)-1])
			for _, f := range forms(parts[len(parts)-1], 0) {
				if m, _ := doublestar.Match(p, dir+f); m {
					return true
				}
				if m, _ := doublestar.Match("**/"+p, dir+f); m {
					return true
				}
			}
			continue
		}
		for _, part := range parts {
			for _, f := range forms(part, 0) {
				if m, _ := path.Match(p, f); m {
					return true
				}
			}
		}
	}
	return false
}

// TestPathBlockedMatchesReference: PathBlocked decides as the plain
// reference does, for names built from every pattern's pieces (with
// backup suffixes, in directories, near misses) and for every file of
// GOROOT/src, with the default patterns and with extra ones.
func TestPathBlockedMatchesReference(t *testing.T) {
	extra := []string{"**/secrets/*.yaml", "*.tar.gz", "deploy.*", "*.vault", "conf/*.ini", "*token*"}
	for _, g := range []struct {
		name  string
		extra []string
	}{{"default", nil}, {"extra", extra}} {
		gate, err := NewGate(g.extra...)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range gate.paths {
			base := strings.NewReplacer("**/", "", "*", "x", "?", "q").Replace(p)
			names = append(names, base, "a/"+base, ".x/"+base, "d/"+strings.ToUpper(base), base+"s", "s"+base, strings.TrimPrefix(base, "."))
			for _, b := range backupSuffixes {
				names = append(names, base+b, "dir/"+base+b+".bak", "."+base+b)
			}
			names = append(names, "#"+base+"#", base+"/f.go", "x/"+base+"/y/z.txt", ".ssh", ".ssh/"+base, "src/.aws/"+base)
		}
		names = append(names, "a.go", "a.go~", "a.swo", ".a.swp", "x.pem.swp", ".kube/config", "k.kube/config", "a/.kube/config.bak", "pem", ".pem", "key", "a.key.old", "id_rsa.pub", "x/id_rsa/y")
		root := filepath.Join(runtime.GOROOT(), "src")
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
		blocked := 0
		for _, n := range names {
			_, got := gate.PathBlocked(n)
			if want := refPathBlocked(gate.paths, n); got != want {
				t.Errorf("%s: PathBlocked(%q) = %v, the reference says %v", g.name, n, got, want)
			}
			if got {
				blocked++
			}
		}
		if blocked < 500 || blocked > len(names)/2 {
			t.Errorf("%s: %d of %d names blocked; the names do not test both answers", g.name, blocked, len(names))
		}
	}
}

// BenchmarkPathBlocked is PathBlocked over every file path of
// GOROOT/src (a search asks it of each file it walks).
func BenchmarkPathBlocked(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	var paths []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(paths) == 0 {
		b.Skip("no GOROOT/src")
	}
	g := DefaultGate()
	for b.Loop() {
		for _, p := range paths {
			g.PathBlocked(p)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(paths)), "ns/path")
}
