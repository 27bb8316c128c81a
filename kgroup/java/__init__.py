"""Java semantics that Kafka's output depends on, emulated exactly (pure Python).

One module per Java notion, and no copy of any of them elsewhere in kgroup:
:mod:`.strings` (``String.hashCode``, ``compareTo`` order), :mod:`.hashmap` (``HashMap``/
``HashSet`` sizing and iteration order), :mod:`.uuid`, :mod:`.topic_partition`,
:mod:`.primitives` (``int``/``float`` arithmetic), :mod:`.utf8` (``new String(bytes, UTF_8)``),
:mod:`.jackson` (``JsonNode.toString()``), :mod:`.priority_queue` (``PriorityQueue``'s ties).
See docs/java-emulation.md.
"""
