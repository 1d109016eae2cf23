package engine

import "context"

// WaitIntents waits until the queries queued for the chat model's intent
// so far are answered (or failed), or ctx ends; for tests.
func (s *Service) WaitIntents(ctx context.Context) error {
	if s.intents == nil {
		return nil
	}
	return s.intents.wait(ctx)
}
