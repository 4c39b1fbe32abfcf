//go:build !race

package lake

const raceDetector = false
