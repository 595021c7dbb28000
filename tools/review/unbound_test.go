package review

import (
	"strings"
	"testing"
)

// TestUnbound: the listing's review tools (`autarch tools --agent review`)
// are the review agent's five, and a call without a review answers the
// model's readable error, never a Go error or a panic.
func TestUnbound(t *testing.T) {
	var names []string
	for _, tool := range Unbound() {
		names = append(names, tool.Name())
	}
	if got := strings.Join(names, ","); got != "get_diff,get_scope_card,add_line_comment,add_file_comment,add_review_comment" {
		t.Fatalf("unbound review tools = %s", got)
	}
	tests := []struct{ tool, args, want string }{
		{"get_diff", `{}`, "Diff artifact not found"},
		{"get_scope_card", `{}`, "Scope card not found"},
		{"add_line_comment", `{"file_path":"a.go","start_line":1,"severity":"Low","category":"style","description":"x"}`, "No review is running"},
		{"add_file_comment", `{"file_path":"a.go","severity":"Low","category":"style","description":"x"}`, "No review is running"},
		{"add_review_comment", `{"severity":"Low","category":"style","description":"x"}`, "No review is running"},
	}
	for _, tt := range tests {
		res, err := callTool(t, noReview{}, tt.tool, tt.args)
		if err != nil || !res.Failed || !strings.Contains(res.Output, tt.want) {
			t.Errorf("%s = %s, %v; want a failed result with %q", tt.tool, res.Output, err, tt.want)
		}
	}
}
