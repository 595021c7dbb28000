package testkit

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/autarch-dev/autarch/agent/scripted"
)

// scenarioFilter is the -scenario flag of every test binary that runs
// scenarios.
var scenarioFilter = flag.String("scenario", "", "run only the scenarios whose file name contains this")

// Scenario is one txtar scenario: its comment, config.json and want.json,
// the files of the user's repository (repo/…) and, every other file, the
// scripted model's steps.
type Scenario struct {
	// Path is the scenario's file.
	Path string
	// Comment is the archive's comment (the story the scenario tells).
	Comment []byte
	// Config and Want are config.json and want.json (nil when absent).
	Config, Want []byte
	// Repo holds the repository's files, named relative to repo/.
	Repo []txtar.File
	// Steps are the model's steps in the archive's order.
	Steps []txtar.File
}

// LoadScenario reads the scenario at path.
func LoadScenario(t testing.TB, path string) *Scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ParseScenario(path, data)
}

// ParseScenario parses a scenario's text; path names it.
func ParseScenario(path string, data []byte) *Scenario {
	ar := txtar.Parse(data)
	s := &Scenario{Path: path, Comment: ar.Comment}
	for _, f := range ar.Files {
		switch rel, isRepo := strings.CutPrefix(f.Name, "repo/"); {
		case f.Name == "config.json":
			s.Config = f.Data
		case f.Name == "want.json":
			s.Want = f.Data
		case isRepo:
			s.Repo = append(s.Repo, txtar.File{Name: rel, Data: f.Data})
		default:
			s.Steps = append(s.Steps, f)
		}
	}
	return s
}

// Decode decodes config.json into cfg and want.json into want (either nil
// to skip it); bad JSON fails t.
func (s *Scenario) Decode(t testing.TB, cfg, want any) {
	t.Helper()
	for _, d := range []struct {
		name string
		data []byte
		v    any
	}{{"config.json", s.Config, cfg}, {"want.json", s.Want, want}} {
		if d.v == nil || d.data == nil {
			continue
		}
		if err := json.Unmarshal(d.data, d.v); err != nil {
			t.Fatalf("%s: bad %s: %v", s.Path, d.name, err)
		}
	}
}

// WriteRepo writes the repository's files into dir and commits them
// (see Commit).
func (s *Scenario) WriteRepo(t testing.TB, dir string) {
	t.Helper()
	files := map[string]string{}
	for _, f := range s.Repo {
		files[f.Name] = string(f.Data)
	}
	WriteFiles(t, dir, files)
	Commit(t, dir)
}

// NewRepo is a new repository in a temporary folder holding the
// scenario's repo/ files, committed on main.
func (s *Scenario) NewRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	s.WriteRepo(t, dir)
	return dir
}

// Script is the scripted model's script of the steps whose names sort
// from from (inclusive) to to (exclusive; "" for no end).
func (s *Scenario) Script(t testing.TB, from, to string) *scripted.Script {
	t.Helper()
	var steps []txtar.File
	for _, f := range s.Steps {
		if f.Name >= from && (to == "" || f.Name < to) {
			steps = append(steps, f)
		}
	}
	script, err := scripted.Parse(txtar.Format(&txtar.Archive{Comment: s.Comment, Files: steps}))
	if err != nil {
		t.Fatalf("%s: %v", s.Path, err)
	}
	return script
}

// StartModel serves all the scenario's steps as a scripted model and
// returns its base URL.
func (s *Scenario) StartModel(t testing.TB) (string, *scripted.Server) {
	t.Helper()
	return scripted.Start(t, s.Script(t, "", ""))
}

// CheckModel fails t when the scripted model saw requests its script did
// not expect or left steps unused.
func CheckModel(t testing.TB, model *scripted.Server) {
	t.Helper()
	if errs := model.Errors(); len(errs) > 0 {
		t.Errorf("model script mismatches:\n%s", strings.Join(errs, "\n"))
	}
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted model steps were not used", n)
	}
}

// RunScenarios runs run on every scenario matching glob, each as a
// parallel subtest named after its file; the -scenario flag picks some by
// name. No scenario at all fails t.
func RunScenarios(t *testing.T, glob string, run func(t *testing.T, s *Scenario)) {
	t.Helper()
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios match %s (%v)", glob, err)
	}
	for _, path := range paths {
		if *scenarioFilter != "" && !strings.Contains(path, *scenarioFilter) {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run(t, LoadScenario(t, path))
		})
	}
}
