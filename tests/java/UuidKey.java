// A Kafka Uuid as the JDK's hash collections see it: Uuid.hashCode() over its two halves
// (the drivers of tests/differential/test_hash_order_java.py and test_uniform_topic_ids_java.py)
record UuidKey(long msb, long lsb) {
  @Override public int hashCode() { long x = msb ^ lsb; return (int) (x >> 32) ^ (int) x; }
}
