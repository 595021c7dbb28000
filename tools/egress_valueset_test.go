package tools

import (
	"testing"
)

// TestValueSetKeepsEveryForm: values harvested more than once, and
// values whose forms share their first 8 bytes, are each still found in
// every form (as is, reversed, hex, base64 at each alignment) after the
// set turns each distinct value into its forms once.
func TestValueSetKeepsEveryForm(t *testing.T) {
	values := []string{
		"hunter2hunter2xyz", "hunter2hunter2xyz", // the same value twice
		"hunter2hunter2abc", // the same first 8 bytes
		"s3cr3t-T0ken-value-1234", "s3cr3t-T0ken-value-1234",
		"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ",
	}
	s := newValueSet(values, 1)
	for _, v := range values {
		for _, form := range valueForms(v) {
			if len(form) < 8 {
				continue
			}
			hay := []byte("<<" + form + ">>")
			spans := s.find(hay)
			if len(spans) == 0 || spans[0][0] > 2 || spans[len(spans)-1][1] < 2+len(form) {
				t.Errorf("form %q of %q: spans %v, want it covered", form, v, spans)
			}
		}
	}
}
