package workflow

import (
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

func ids(ps []PlannedPulse) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.ID)
	}
	return strings.Join(s, ",")
}

func TestOrder(t *testing.T) {
	p := func(id string, deps ...string) PlannedPulse { return PlannedPulse{ID: id, DependsOn: deps} }
	tests := []struct {
		name    string
		in      []PlannedPulse
		want    string
		wantErr string
	}{
		{"plan order kept", []PlannedPulse{p("a"), p("b"), p("c")}, "a,b,c", ""},
		{"dependency first", []PlannedPulse{p("a", "c"), p("b"), p("c")}, "c,a,b", ""},
		{"chain", []PlannedPulse{p("c", "b"), p("b", "a"), p("a")}, "a,b,c", ""},
		{"diamond", []PlannedPulse{p("d", "b", "c"), p("b", "a"), p("c", "a"), p("a")}, "a,b,c,d", ""},
		{"empty", nil, "", ""},
		{"duplicate", []PlannedPulse{p("a"), p("a")}, "", `pulse id "a" is used twice`},
		{"unknown dep", []PlannedPulse{p("a", "zz")}, "", `depends on "zz", which is not in the plan`},
		{"self dep", []PlannedPulse{p("a", "a")}, "", `"a" depends on itself`},
		{"cycle", []PlannedPulse{p("a", "b"), p("b", "a")}, "", "cycle: a → b → a"},
		{"cycle named without its way in", []PlannedPulse{p("x", "a"), p("a", "b"), p("b", "c"), p("c", "a")}, "", "in a cycle: a → b → c → a"},
		{"missing id", []PlannedPulse{{Title: "x"}}, "", "pulse 1 has no id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Order(tt.in)
			if testkit.WantErr(t, err, tt.wantErr) {
				return
			}
			if ids(got) != tt.want {
				t.Errorf("order = %s, want %s", ids(got), tt.want)
			}
		})
	}
}

func TestNext(t *testing.T) {
	tests := []struct {
		from Stage
		path Path
		want Stage
		err  bool
	}{
		{StageDiscussion, PathFull, StageScoping, false},
		{StageScoping, PathQuick, StagePreflight, false},
		{StageScoping, PathFull, StageResearch, false},
		{StageResearch, PathFull, StagePlan, false},
		{StagePlan, PathFull, StagePreflight, false},
		{StagePreflight, PathQuick, StagePulsing, false},
		{StagePulsing, PathFull, StageReview, false},
		{StageReview, PathFull, StageDone, false},
		{StageResearch, PathQuick, "", true},
		{StageDone, PathFull, "", true},
	}
	for _, tt := range tests {
		got, err := Next(tt.from, tt.path)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("Next(%s, %s) = %s, %v; want %s (err %v)", tt.from, tt.path, got, err, tt.want, tt.err)
		}
	}
	if _, err := ParsePath("medium"); err == nil || !strings.Contains(err.Error(), "quick or full") {
		t.Errorf("ParsePath(medium) = %v", err)
	}
}

func TestValidateCompletion(t *testing.T) {
	fail := []Failure{{Tool: "shell", Summary: "go test ./... exited 1"}}
	issue := []UnresolvedIssue{{Issue: "flaky TestX", Reason: "times out on CI"}}
	tests := []struct {
		name       string
		failures   []Failure
		rejections int
		unresolved []UnresolvedIssue
		accepted   bool
		halt       bool
		msg        string
	}{
		{"clean", nil, 0, nil, true, false, ""},
		{"failure rejected", fail, 0, nil, false, false, "go test ./... exited 1"},
		{"first rejection hides the hatch", fail, 0, nil, false, false, ""},
		{"second rejection reveals the hatch", fail, 1, nil, false, false, "unresolvedIssues"},
		{"hatch before reveal refused", fail, 0, issue, false, false, "not available yet"},
		{"hatch after reveal halts", fail, 2, issue, true, true, ""},
		{"hatch needs a reason", fail, 2, []UnresolvedIssue{{Issue: "x"}}, false, false, "needs both issue and reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := ValidateCompletion(tt.failures, tt.rejections, tt.unresolved)
			if v.Accepted != tt.accepted || v.Halt != tt.halt {
				t.Errorf("verdict = %+v", v)
			}
			if tt.msg != "" && !strings.Contains(v.Message, tt.msg) {
				t.Errorf("message %q lacks %q", v.Message, tt.msg)
			}
			if tt.name == "first rejection hides the hatch" && strings.Contains(v.Message, "unresolvedIssues") {
				t.Errorf("escape hatch revealed on the first rejection: %q", v.Message)
			}
		})
	}
}
