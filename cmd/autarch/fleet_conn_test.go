package main

import "testing"

// autarch stop and resume are autarch fleet's when their words name a
// fleet's NATS; other flags and the words after "--" do not.
func TestFleetRunArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--nats", "nats://h:4222", "0123456789abcdef"}, true},
		{[]string{"-nats=nats://h:4222", "0123456789abcdef"}, true},
		{[]string{"--creds", "w.creds", "--nats", "nats://h", "0123456789abcdef"}, true},
		{[]string{"--root", ".", "calc-ops"}, false},
		{[]string{"calc-ops", "nats"}, false},
		{[]string{"--", "--nats"}, false},
		{nil, false},
	} {
		if got := fleetRunArgs(tc.args); got != tc.want {
			t.Errorf("fleetRunArgs(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
