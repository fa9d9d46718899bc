"""What every platform's poster shares, and none re-implements: the review draft made from
a plan (`draft`), the bodies a poster writes itself with their markers (`bodies`), fitting
a body to the size limit (`fitting`), what is already ours and what a run changes
(`reconcile`), whether a finding no longer reported is fixed (`fixing`), the platforms'
timestamps (`timestamps`), and what a thread platform's run did, said in one line
(`outcome`).

Each platform package (`github/`, `gitlab/`, ...) imports from here and never from another
platform's package; nothing here knows a platform's API.
"""
