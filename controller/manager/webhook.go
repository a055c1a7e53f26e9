package manager

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controller/webhook"
)

// GetWebhookServer returns the webhook server the Manager runs:
// Options.WebhookServer, or, if that is nil, a default one that this first
// call creates (port 9443, certificates in controller-runtime's directory,
// metrics on Registry), as controller-runtime's GetWebhookServer does.
// Register handlers on it before or after Run; create it before Run.
func (m *Manager) GetWebhookServer() *webhook.Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.webhooks) == 0 && !m.started {
		s, err := webhook.NewServer(webhook.Options{Registerer: m.registry})
		if err != nil {
			// Only a registry that has the webhook metrics already: serve
			// anyway, and let Run say why it cannot.
			m.webhookErr = fmt.Errorf("manager: default webhook server: %w", err)
			s, _ = webhook.NewServer(webhook.Options{})
		}
		m.addWebhookServerLocked(s)
	}
	if len(m.webhooks) == 0 {
		return nil
	}
	return m.webhooks[0].r.(*webhook.Server)
}

// addWebhookServerLocked registers s to run in the webhook stage: started
// before the informers, stopped after them. A server given twice (as
// Options.WebhookServer and to Add) runs once. m.mu is held.
func (m *Manager) addWebhookServerLocked(s *webhook.Server) {
	for _, e := range m.webhooks {
		if e.r == s {
			return
		}
	}
	name := s.Name()
	if len(m.webhooks) > 0 {
		name = fmt.Sprintf("%s #%d", name, len(m.webhooks))
	}
	m.webhooks = append(m.webhooks, &runnableEntry{name: name, r: s, done: make(chan struct{})})
}

// startWebhooks starts the webhook servers and waits until each listens,
// or fails, before anything else starts: an informer's first list may
// call a conversion webhook.
func (r *run) startWebhooks() error {
	if err := r.m.webhookErr; err != nil {
		return err
	}
	var ctx context.Context
	ctx, r.cancelWebhooks = context.WithCancel(r.base)
	for _, e := range r.webhooks {
		e.start(ctx, r.failed)
	}
	for _, e := range r.webhooks {
		select {
		case <-e.r.(*webhook.Server).Listening():
		case <-e.done:
			err := e.err
			if err == nil {
				err = errors.New("stopped before it listened")
			}
			r.stopWebhooks()
			return fmt.Errorf("manager: %s: %w", e.name, err)
		}
	}
	return nil
}

// stopWebhooks stops the webhook servers, which drain requests in flight.
// It runs after the informers have stopped, so that conversion keeps
// working while anything still lists or watches.
func (r *run) stopWebhooks() {
	if r.cancelWebhooks == nil {
		return
	}
	r.cancelWebhooks()
	if r.deadline == nil { // Run failed to start: no shutdown deadline yet
		for _, e := range r.webhooks {
			<-e.done
		}
		return
	}
	r.waitStage("webhook servers", runnableWaiters(r.webhooks))
}
