package git

import "testing"

func TestNameForTask(t *testing.T) {
	tests := []struct{ task, want string }{
		{"Add Sub and Mul to calc", "add-sub-and-mul-to-calc-592f22"},
		{"Add rate limiting to the login endpoint so that brute force fails", "add-rate-limiting-to-the-login-endpoint-592f22"},
		{"Refactor the configuration loader and then the whole module", "refactor-the-configuration-loader-592f22"},
		{"Fix the bug in ünïcode handling!", "fix-the-bug-in-n-code-handling-592f22"},
		{"Supercalifragilisticexpialidociousandmoreandmorewords here", "supercalifragilisticexpialidociousandmor-592f22"},
		{"¿?", "workflow-592f22"},
	}
	for _, tt := range tests {
		got := NameForTask(tt.task, "592f22")
		if got != tt.want {
			t.Errorf("NameForTask(%q) = %q, want %q", tt.task, got, tt.want)
		}
		if err := ValidateName(got); err != nil {
			t.Errorf("NameForTask(%q): %v", tt.task, err)
		}
	}
}
