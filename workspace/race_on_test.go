//go:build race

package workspace

// raceOn: the race detector is on (sync.Pool then drops items at random,
// so allocation counts mean nothing).
const raceOn = true
