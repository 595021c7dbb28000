// Package cron parses five-field cron schedules.
package cron

import (
	"fmt"
	"strconv"
	"strings"
)

// Schedule holds the allowed values of each field.
type Schedule struct {
	Minute, Hour, Day, Month, Weekday map[int]bool
}

// Parse reads "minute hour day month weekday", each field "*", a number,
// a range "a-b" or a step "*/n".
func Parse(spec string) (Schedule, error) {
	f := strings.Fields(spec)
	if len(f) != 5 {
		return Schedule{}, fmt.Errorf("cron: want 5 fields, got %d", len(f))
	}
	bounds := [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 6}}
	var sets [5]map[int]bool
	for i, field := range f {
		set, err := parseField(field, bounds[i][0], bounds[i][1])
		if err != nil {
			return Schedule{}, fmt.Errorf("cron field %d: %w", i+1, err)
		}
		sets[i] = set
	}
	return Schedule{sets[0], sets[1], sets[2], sets[3], sets[4]}, nil
}

func parseField(field string, lo, hi int) (map[int]bool, error) {
	set := map[int]bool{}
	step := 1
	if base, s, ok := strings.Cut(field, "/"); ok {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad step %q", s)
		}
		field, step = base, n
	}
	from, to := lo, hi
	if field != "*" {
		a, b, isRange := strings.Cut(field, "-")
		var err error
		if from, err = strconv.Atoi(a); err != nil {
			return nil, err
		}
		to = from
		if isRange {
			if to, err = strconv.Atoi(b); err != nil {
				return nil, err
			}
		}
	}
	for v := from; v <= to; v += step {
		set[v] = true
	}
	return set, nil
}
