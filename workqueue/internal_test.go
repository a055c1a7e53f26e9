package workqueue

// timerIsRunning reports whether the timer goroutine is running.
func (q *Queue[T]) timerIsRunning() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.timer.running
}
