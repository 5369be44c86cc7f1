package testutil

import (
	"sync"
	"time"
)

// Clock is a clock a test moves by hand; its Now is what code under test is
// given as its injected clock.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts a Clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
