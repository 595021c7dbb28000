package editor

import (
	"reflect"
	"strings"
	"testing"
)

// Every typed form of a decision, and the refusals: a word that is no
// decision, and always/abort where the approval does not offer them.
func TestParseDecision(t *testing.T) {
	all := Approval{AllowAlways: true, AllowAbort: true}
	tests := []struct {
		text string
		a    Approval
		want Decision
		ok   bool
	}{
		{"approve", all, DecisionApprove, true},
		{"Approved.", all, DecisionApprove, true},
		{" y ", all, DecisionApprove, true},
		{"YES", all, DecisionApprove, true},
		{"ok", all, DecisionApprove, true},
		{"okay", all, DecisionApprove, true},
		{"LGTM!", all, DecisionApprove, true},
		{"go", all, DecisionApprove, true},
		{"go  ahead", all, DecisionApprove, true},
		{"w", all, DecisionAlwaysAllow, true},
		{"always", all, DecisionAlwaysAllow, true},
		{"Always allow", all, DecisionAlwaysAllow, true},
		{"x", all, DecisionAbort, true},
		{"abort", all, DecisionAbort, true},
		{"r", all, DecisionReject, true},
		{"reject", all, DecisionReject, true},
		{"n", all, DecisionReject, true},
		{"No.", all, DecisionReject, true},
		// Refusals. "a" is no answer (001-36): the spec's [y/n/a] aborts
		// with it, Autarch's earlier prompt approved with it.
		{"a", all, "", false},
		{"always", Approval{}, "", false},
		{"w", Approval{AllowAbort: true}, "", false},
		{"x", Approval{AllowAlways: true}, "", false},
		{"abort", Approval{}, "", false},
		{"", all, "", false},
		{"approve, but rename it", all, "", false},
		{"yes please", all, "", false},
		{"maybe", all, "", false},
	}
	for _, tt := range tests {
		d, ok := ParseDecision(tt.text, tt.a)
		if d != tt.want || ok != tt.ok {
			t.Errorf("ParseDecision(%q, always %v abort %v) = %q %v, want %q %v", tt.text, tt.a.AllowAlways, tt.a.AllowAbort, d, ok, tt.want, tt.ok)
		}
	}
}

// Every accepted form of an answer to each type of question, and the
// refusals with what their message says.
func TestParseAnswer(t *testing.T) {
	single := Question{Type: SingleSelect, Prompt: "Which store?", Options: []string{"SQLite", "Postgres"}}
	multi := Question{Type: MultiSelect, Prompt: "Which checks?", Options: []string{"vet", "lint", "test"}}
	ranked := Question{Type: Ranked, Prompt: "Rank them", Options: []string{"speed", "safety", "size"}}
	free := Question{Type: FreeText, Prompt: "Anything else?"}
	noType := Question{Prompt: "Pick", Options: []string{"one", "two"}}
	tests := []struct {
		name string
		q    Question
		text string
		want []string
		err  string // a substring of the refusal ("" accepts)
	}{
		{"single by number", single, "2", []string{"Postgres"}, ""},
		{"single by name, any case", single, "sqlite", []string{"SQLite"}, ""},
		{"single trimmed", single, "  1 \n", []string{"SQLite"}, ""},
		{"single without a type", noType, "2", []string{"two"}, ""},
		{"multi by numbers and spaces", multi, "1 3", []string{"vet", "test"}, ""},
		{"multi by numbers and commas", multi, "1,3", []string{"vet", "test"}, ""},
		{"multi by names and numbers", multi, "lint, 3", []string{"lint", "test"}, ""},
		{"multi one", multi, "2", []string{"lint"}, ""},
		{"ranked by numbers", ranked, "3 1 2", []string{"size", "speed", "safety"}, ""},
		{"ranked by names", ranked, "Safety, speed, size", []string{"safety", "speed", "size"}, ""},
		{"free text as it is", free, " Keep it small, please ", []string{"Keep it small, please"}, ""},
		{"free text that looks like numbers", free, "1 2", []string{"1 2"}, ""},
		// Refusals.
		{"empty", single, "  ", nil, "no answer"},
		{"empty free text", free, "", nil, "no answer"},
		{"single out of range", single, "3", nil, "not one of the options"},
		{"single zero", single, "0", nil, "not one of the options"},
		{"single unknown name", single, "MySQL", nil, `"MySQL" is not one of the options of "Which store?" (1) SQLite, 2) Postgres)`},
		{"single two numbers", single, "1 2", nil, "takes one option"},
		{"multi with an unknown one", multi, "1 9", nil, `"9" is not one of the options`},
		{"multi unknown name", multi, "vet, fmt", nil, `"fmt" is not one of the options`},
		{"ranked missing one", ranked, "1 2", nil, "ranks every option once"},
		{"ranked twice", ranked, "1 1 2", nil, "ranks every option once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAnswer(tt.q, tt.text)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("ParseAnswer(%q) = %v, %v; want a refusal saying %q", tt.text, got, err, tt.err)
			case tt.err == "" && !reflect.DeepEqual(got.Values, tt.want):
				t.Errorf("ParseAnswer(%q) = %q, want %q", tt.text, got.Values, tt.want)
			}
		})
	}
}
