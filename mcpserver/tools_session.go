package mcpserver

// addSessionTools registers session_search once the transcript package can search.
func (s *Server) addSessionTools() {}
