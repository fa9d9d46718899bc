"""Text every stage shares: our hidden markers (`markers`) and how untrusted text is made
inert (`escape`). Readers use them to tell our comments from bots', renderers and the
history to write and neutralise text; they depend on nothing else in the package, so
reading input never depends on rendering."""
