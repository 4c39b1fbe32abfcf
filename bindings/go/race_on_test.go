//go:build race

package lake

// raceDetector: this test binary runs under the race detector, whose own
// shadow memory makes resident-memory bounds meaningless (L-001, L-002 run
// in the script's pass without it).
const raceDetector = true
