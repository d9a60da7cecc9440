"""What makes a turn belong to a project and reach every tab: the running turn
(lock, task, heartbeat, fan-out, replay), the socket and who may open it, what
a tab gets when it connects, and the frames in and out."""
