package dev.cellar.bench.workload;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * JSON documents of about 1 KB, the values a document store keeps: orders of a web shop, each with
 * a customer, an address, one to four line items, totals, a payment and a shipment. The same seed
 * gives the same documents, byte for byte, on every machine.
 *
 * <p>They are made to compress as real documents do, neither better nor worse: field names repeat
 * within a document (every line item has the same five) and across documents; values come from
 * small vocabularies (names, cities, products, statuses) with random identifiers, hex tokens and
 * amounts between them, which no compressor can shrink; timestamps rise from document to document
 * as in a log. One document alone compresses less than 2x (zstd has little history to match against
 * in 1 KB); 64 KiB of them compress 3x to 5x. Incompressible values ({@link ValueFactory}) would
 * show a compressor at its worst and hide what it gains; these show both sides.
 */
public final class JsonDocuments {
  private static final String[] FIRST_NAMES = {
    "Anna", "Ben", "Clara", "David", "Elena", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Karin",
    "Lukas", "Maria", "Noah", "Olga", "Paul", "Rosa", "Simon", "Tara", "Viktor", "Wanda", "Yusuf"
  };
  private static final String[] LAST_NAMES = {
    "Schmidt", "Novak", "Garcia", "Rossi", "Dubois", "Jensen", "Kowalski", "Silva", "Murphy",
    "Yilmaz", "Nakamura", "Okafor", "Petrov", "Larsen", "Moreau", "Fischer", "Costa", "Varga"
  };
  private static final String[] DOMAINS = {
    "example.com", "mail.example.org", "post.example.net", "inbox.example.de"
  };
  private static final String[][] CITIES = {
    {"Berlin", "DE", "EUR", "+49"},
    {"Hamburg", "DE", "EUR", "+49"},
    {"Vienna", "AT", "EUR", "+43"},
    {"Paris", "FR", "EUR", "+33"},
    {"Lyon", "FR", "EUR", "+33"},
    {"Madrid", "ES", "EUR", "+34"},
    {"Milan", "IT", "EUR", "+39"},
    {"Warsaw", "PL", "PLN", "+48"},
    {"Prague", "CZ", "CZK", "+420"},
    {"Copenhagen", "DK", "DKK", "+45"},
    {"London", "GB", "GBP", "+44"},
    {"Dublin", "IE", "EUR", "+353"}
  };
  private static final String[] STREETS = {
    "Linden Street",
    "Harbour Road",
    "Market Square",
    "Station Avenue",
    "Mill Lane",
    "Park Row",
    "Church Street",
    "River Walk",
    "Garden Way",
    "Castle Hill"
  };
  private static final String[] ADJECTIVES = {
    "Classic", "Compact", "Deluxe", "Eco", "Large", "Organic", "Premium", "Small", "Smart", "Travel"
  };
  private static final String[][] PRODUCTS = {
    {"Coffee Grinder", "kitchen"},
    {"Chef Knife", "kitchen"},
    {"Tea Kettle", "kitchen"},
    {"Desk Lamp", "home"},
    {"Wool Blanket", "home"},
    {"Plant Pot", "garden"},
    {"Garden Hose", "garden"},
    {"Running Shoes", "sports"},
    {"Yoga Mat", "sports"},
    {"Water Bottle", "sports"},
    {"Backpack", "travel"},
    {"Notebook", "office"},
    {"Fountain Pen", "office"},
    {"Headphones", "electronics"},
    {"USB-C Cable", "electronics"},
    {"Phone Case", "electronics"}
  };
  private static final String[] EVENTS = {
    "order.created", "order.paid", "order.packed", "order.shipped", "order.delivered"
  };
  private static final String[] PAYMENT_STATUS = {"authorized", "captured", "captured", "refunded"};
  private static final String[] BRANDS = {"visa", "mastercard", "amex"};
  private static final String[] CARRIERS = {"dhl", "ups", "dpd", "gls", "postnl"};
  private static final String[] SERVICES = {"standard", "express", "economy"};
  private static final String[] CHANNELS = {"web", "ios", "android", "store"};
  private static final String[] TAGS = {
    "gift", "priority", "first-order", "subscription", "bulk", "fragile", "promo", "returning"
  };
  private static final String HEX = "0123456789abcdef";
  private static final String ALNUM = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ";

  private final SplittableRandom random;
  private long clockMillis = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
  private long number;

  public JsonDocuments(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** The first {@code count} documents of {@code seed}, as UTF-8. */
  public static List<byte[]> generate(long seed, int count) {
    if (count < 0) {
      throw new IllegalArgumentException("document count " + count + " < 0");
    }
    JsonDocuments documents = new JsonDocuments(seed);
    List<byte[]> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(documents.next());
    }
    return out;
  }

  /** The next document, as UTF-8. */
  public byte[] next() {
    clockMillis += 1 + random.nextInt(4_000);
    number++;
    String[] city = pick(CITIES);
    String first = pick(FIRST_NAMES);
    String last = pick(LAST_NAMES);
    StringBuilder json = new StringBuilder(1_400);
    json.append('{');
    field(json, "id", "ord_" + token(HEX, 16)).append(',');
    field(json, "type", pick(EVENTS)).append(',');
    field(json, "number", number).append(',');
    field(json, "created_at", Instant.ofEpochMilli(clockMillis).toString()).append(',');
    customer(json, first, last, city);
    json.append(',');
    long subtotal = items(json, city[2]);
    json.append(',');
    totals(json, subtotal, city[2]);
    json.append(',');
    payment(json);
    json.append(',');
    shipping(json);
    json.append(',');
    field(json, "channel", pick(CHANNELS)).append(',');
    client(json);
    json.append(',');
    tags(json);
    return json.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  private void customer(StringBuilder json, String first, String last, String[] city) {
    key(json, "customer").append('{');
    field(json, "id", "cus_" + token(HEX, 12)).append(',');
    field(json, "name", first + " " + last).append(',');
    field(
            json,
            "email",
            (first + "." + last).toLowerCase(Locale.ROOT)
                + (random.nextInt(4) == 0 ? String.valueOf(random.nextInt(100)) : "")
                + "@"
                + pick(DOMAINS))
        .append(',');
    field(json, "phone", city[3] + " " + (100 + random.nextInt(900)) + " " + token("0123456789", 7))
        .append(',');
    key(json, "address").append('{');
    field(json, "street", (1 + random.nextInt(200)) + " " + pick(STREETS)).append(',');
    field(json, "city", city[0]).append(',');
    field(json, "postal_code", token("0123456789", 5)).append(',');
    field(json, "country", city[1]).append('}').append(',');
    field(json, "loyalty_points", random.nextInt(5_000)).append('}');
  }

  /** One to three line items; returns their sum in minor units. */
  private long items(StringBuilder json, String currency) {
    key(json, "items").append('[');
    int count = 1 + random.nextInt(3);
    long subtotal = 0;
    for (int i = 0; i < count; i++) {
      String[] product = pick(PRODUCTS);
      int quantity = 1 + (random.nextInt(4) == 0 ? random.nextInt(5) : 0);
      long unitPrice = 99 + random.nextInt(25_000);
      subtotal += quantity * unitPrice;
      json.append(i == 0 ? "{" : ",{");
      field(json, "sku", "SKU-" + String.format(Locale.ROOT, "%06d", random.nextInt(20_000)))
          .append(',');
      field(json, "name", pick(ADJECTIVES) + " " + product[0]).append(',');
      field(json, "category", product[1]).append(',');
      field(json, "quantity", quantity).append(',');
      key(json, "unit_price").append('{');
      field(json, "amount", unitPrice).append(',');
      field(json, "currency", currency).append("}}");
    }
    json.append(']');
    return subtotal;
  }

  private void totals(StringBuilder json, long subtotal, String currency) {
    long tax = subtotal * 19 / 100;
    long shipping = subtotal > 5_000 ? 0 : 495;
    key(json, "totals").append('{');
    field(json, "subtotal", subtotal).append(',');
    field(json, "tax", tax).append(',');
    field(json, "shipping", shipping).append(',');
    field(json, "total", subtotal + tax + shipping).append(',');
    field(json, "currency", currency).append('}');
  }

  private void payment(StringBuilder json) {
    key(json, "payment").append('{');
    field(json, "method", random.nextInt(5) == 0 ? "paypal" : "card").append(',');
    field(json, "status", pick(PAYMENT_STATUS)).append(',');
    key(json, "card").append('{');
    field(json, "brand", pick(BRANDS)).append(',');
    field(json, "last4", token("0123456789", 4)).append(',');
    field(
            json,
            "expires",
            String.format(Locale.ROOT, "%02d/%02d", 1 + random.nextInt(12), 27 + random.nextInt(6)))
        .append("},");
    field(json, "transaction_id", "txn_" + token(HEX, 24)).append('}');
  }

  private void shipping(StringBuilder json) {
    LocalDate shipped = Instant.ofEpochMilli(clockMillis).atZone(ZoneOffset.UTC).toLocalDate();
    key(json, "shipping").append('{');
    field(json, "carrier", pick(CARRIERS)).append(',');
    field(json, "service", pick(SERVICES)).append(',');
    field(json, "tracking_number", token(ALNUM, 18)).append(',');
    field(json, "estimated_delivery", shipped.plusDays(1 + random.nextInt(6)).toString())
        .append('}');
  }

  private void client(StringBuilder json) {
    key(json, "client").append('{');
    field(json, "session_id", token(HEX, 32)).append(',');
    field(
            json,
            "ip",
            random.nextInt(1, 224)
                + "."
                + random.nextInt(256)
                + "."
                + random.nextInt(256)
                + "."
                + random.nextInt(1, 255))
        .append('}');
  }

  private void tags(StringBuilder json) {
    key(json, "tags").append('[');
    int count = random.nextInt(4);
    for (int i = 0; i < count; i++) {
      json.append(i == 0 ? "" : ",").append('"').append(pick(TAGS)).append('"');
    }
    json.append(']');
  }

  private <T> T pick(T[] choices) {
    return choices[random.nextInt(choices.length)];
  }

  private String token(String alphabet, int length) {
    char[] chars = new char[length];
    for (int i = 0; i < length; i++) {
      chars[i] = alphabet.charAt(random.nextInt(alphabet.length()));
    }
    return new String(chars);
  }

  // Every string the generator writes comes from the tables above or from digits and letters, so
  // nothing needs escaping.
  private static StringBuilder key(StringBuilder json, String name) {
    return json.append('"').append(name).append("\":");
  }

  private static StringBuilder field(StringBuilder json, String name, String value) {
    return key(json, name).append('"').append(value).append('"');
  }

  private static StringBuilder field(StringBuilder json, String name, long value) {
    return key(json, name).append(value);
  }
}
