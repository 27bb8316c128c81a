import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;

/**
 * Test driver for tests/test_java_utf8.py: each input line is ":" followed by the hex of a
 * byte string; each output line is ":" followed by the UTF-16 code units (4 hex digits each)
 * of new String(bytes, UTF_8).
 */
public final class Utf8Driver {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.US_ASCII), 1 << 16);
        StringBuilder line = new StringBuilder();
        String text;
        while ((text = in.readLine()) != null) {
            int n = (text.length() - 1) / 2;
            byte[] raw = new byte[n];
            for (int i = 0; i < n; i++) {
                raw[i] = (byte) Integer.parseInt(text.substring(1 + 2 * i, 3 + 2 * i), 16);
            }
            String s = new String(raw, StandardCharsets.UTF_8);
            line.setLength(0);
            line.append(':');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                line.append(HEX[(c >> 12) & 15]).append(HEX[(c >> 8) & 15]).append(HEX[(c >> 4) & 15]).append(HEX[c & 15]);
            }
            out.write(line.toString());
            out.write('\n');
        }
        out.flush();
    }
}
