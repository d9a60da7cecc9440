"""Every project a Git repository (DESIGN §1, §7): `/git/<project id>.git`.

- `steps`: the revision log read as steps (a turn, a save, an undo…), each one commit.
- `trees`: the project's files at a point as Git trees and blobs, built incrementally.
- `repository`: the commits of `main` (kept once made: `GitCommit`) and every
  object any process needs to serve the project, from the database alone.
- `push`: a pushed `main` applied to the files through the file service.
- `protocol` and `http`: smart HTTP (dulwich), signed in with an access token.
- `turns`: the requests that began turns (chat tells us; projects never imports chat).
"""
