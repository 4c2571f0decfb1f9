package kernel

// ChannelCount is the number of event bus channels the kernel holds (tests).
func (s *Server) ChannelCount() int { return s.bus.channelCount() }
