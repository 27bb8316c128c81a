"""What-if: every assignor of Kafka, a hypothetical change compared across them, the classic
protocol vote and rolling switches."""
