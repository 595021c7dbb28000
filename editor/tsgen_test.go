package editor

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite vscode-extension/src/lspext.gen.ts")

// tsFile is the generated TypeScript side of the protocol.
const tsFile = "../vscode-extension/src/lspext.gen.ts"

// tsTypes are the payload types the extension uses, in output order.
var tsTypes = []any{
	ServerStatus{}, ModelStatus{}, Settings{}, ModelSettings{},
	Question{}, Answer{}, AskQuestionsParams{}, AskQuestionsResult{},
	Approval{}, Verdict{},
	NewWorkflowParams{}, WorkflowRef{}, DiscussParams{}, AnswerParams{}, ReviewBranchParams{}, SearchParams{}, SearchHit{},
	ApplyWorkflowParams{}, ApplyWorkflowResult{}, PulseDiffParams{}, PulseDiff{}, PulseDiffFile{}, FileAtParams{}, FileAtResult{},
	WorkflowEvent{}, CardEvent{}, UsageView{}, DryRunPlanView{}, DryRunEntryView{}, DryRunFileView{}, SetAPIKeyParams{}, OpenFileParams{}, OpenFileResult{}, WorkflowSummary{}, WorkflowDetail{}, StageView{}, CardView{}, PulseView{}, PendingView{}, ActivityView{},
	MessageView{}, ReviewView{}, CommentView{}, DiagnosticsParams{}, DiagnosticsResult{}, DiagnosticItem{}, LanguageFeatureParams{}, LanguageFeatureResult{}, EditorLocation{},
	StartJobParams{}, JobRef{}, AnswerEscalationParams{}, ApplyJobParams{}, JobEvent{}, JobSummary{}, JobCommitView{}, JobCheckView{}, EscalationView{},
	ProjectState{}, MCPServerState{}, RuleFileState{},
	StartSwarmParams{}, SwarmRef{}, SwarmDecisionParams{}, SwarmEvent{}, SwarmAgent{}, SwarmProposal{}, SwarmContextEntry{}, SwarmQueueItem{},
	SwarmRateLimitHit{}, SwarmSnapshot{}, RunSummary{},
	FleetSettings{}, FleetSubmitParams{}, FleetRunRef{}, FleetAnswerParams{}, FleetApplyParams{}, FleetEvent{},
	RevertPulseParams{}, RevertPlanView{}, RevertPulseView{}, RevertPulseResult{}, RedoPulseParams{}, PulseReceiptParams{}, PulseReceiptView{},
}

// TestTypeScript keeps the extension's protocol declarations generated from
// the Go ones: it fails when lspext.gen.ts differs (run with -update).
func TestTypeScript(t *testing.T) {
	got, err := generateTS([]string{"lspext.go", "editor.go", "jobs.go", "swarm.go", "revert.go"})
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(tsFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(tsFile)
	if err != nil {
		t.Fatalf("%v (run go test ./editor -run TestTypeScript -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s is out of date with the Go declarations: run go test ./editor -run TestTypeScript -update", tsFile)
	}
}

func generateTS(files []string) (string, error) {
	var b strings.Builder
	b.WriteString("// Code generated from editor/lspext.go and editor/editor.go by editor/tsgen_test.go; DO NOT EDIT.\n")
	b.WriteString("// Regenerate with: go test ./editor -run TestTypeScript -update\n\n")
	consts, err := stringConsts(files)
	if err != nil {
		return "", err
	}
	for _, c := range consts {
		if c.doc != "" {
			fmt.Fprintf(&b, "/** %s */\n", c.doc)
		}
		fmt.Fprintf(&b, "export const %s = %s;\n", c.name, strconv.Quote(c.value))
	}
	for _, v := range tsTypes {
		b.WriteString("\n")
		writeInterface(&b, reflect.TypeOf(v))
	}
	return b.String(), nil
}

type tsConst struct{ name, value, doc string }

// stringConsts parses the exported string constants of the files.
func stringConsts(files []string) ([]tsConst, error) {
	fset := token.NewFileSet()
	var out []tsConst
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					val, _ := strconv.Unquote(lit.Value)
					out = append(out, tsConst{name.Name, val, oneLine(vs.Doc.Text())})
				}
			}
		}
	}
	return out, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func writeInterface(b *strings.Builder, t reflect.Type) {
	fmt.Fprintf(b, "export interface %s {\n", t.Name())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		optional := ""
		if strings.Contains(opts, "omitempty") {
			optional = "?"
		}
		fmt.Fprintf(b, "  %s%s: %s;\n", name, optional, tsType(f.Type))
	}
	b.WriteString("}\n")
}

func tsType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		return tsType(t.Elem()) + "[]"
	case reflect.Map:
		return "Record<string, " + tsType(t.Elem()) + ">"
	case reflect.Pointer:
		return tsType(t.Elem()) + " | null"
	case reflect.Struct:
		return t.Name()
	}
	return "unknown"
}
