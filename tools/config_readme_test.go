package tools

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestReadmeConfigReference: the manual's (docs/manual.md, moved there
// from the README) .autarch/config.yaml example parses without error or
// warning and shows every key Config knows.
func TestReadmeConfigReference(t *testing.T) {
	data, err := os.ReadFile("../docs/manual.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "### Repository configuration: `.autarch/config.yaml`")
	if !ok {
		t.Fatal("docs/manual.md lacks the section Repository configuration: `.autarch/config.yaml`")
	}
	_, block, _ := strings.Cut(section, "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	if _, warnings, err := ParseConfig([]byte(block)); err != nil || len(warnings) > 0 {
		t.Fatalf("the README's example: %v %v", err, warnings)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	coverKeys(doc.Content[0], reflect.TypeFor[Config](), "", shown)
	var missing []string
	for _, k := range allKeys(reflect.TypeFor[Config](), "") {
		// web_search.key is a key the file refuses (the README says so).
		if !shown[k] && k != "web_search.key" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the README's config.yaml example lacks %s", strings.Join(missing, ", "))
	}
}

// allKeys lists the keys of t as paths (a map's keys are *, a list's items []).
func allKeys(t reflect.Type, path string) []string {
	switch t.Kind() {
	case reflect.Pointer:
		return allKeys(t.Elem(), path)
	case reflect.Map:
		return allKeys(t.Elem(), path+".*")
	case reflect.Slice:
		return allKeys(t.Elem(), path+"[]")
	case reflect.Struct:
		var out []string
		for i := range t.NumField() {
			if tag := yamlTag(t.Field(i)); tag != "" {
				k := join(path, tag)
				out = append(out, k)
				out = append(out, allKeys(t.Field(i).Type, k)...)
			}
		}
		return out
	}
	return nil
}

// coverKeys marks the keys of t that n shows.
func coverKeys(n *yaml.Node, t reflect.Type, path string, shown map[string]bool) {
	switch t.Kind() {
	case reflect.Pointer:
		coverKeys(n, t.Elem(), path, shown)
	case reflect.Map:
		for i := 1; i < len(n.Content); i += 2 {
			coverKeys(n.Content[i], t.Elem(), path+".*", shown)
		}
	case reflect.Slice:
		for _, item := range n.Content {
			coverKeys(item, t.Elem(), path+"[]", shown)
		}
	case reflect.Struct:
		for i := 0; i+1 < len(n.Content); i += 2 {
			for j := range t.NumField() {
				if tag := yamlTag(t.Field(j)); tag != "" && tag == n.Content[i].Value {
					shown[join(path, tag)] = true
					coverKeys(n.Content[i+1], t.Field(j).Type, join(path, tag), shown)
				}
			}
		}
	}
}
