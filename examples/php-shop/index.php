<?php
// A small shop on Kassa with the official CCV Online Payments PHP library, unchanged: Kassa speaks
// its API, so the library only needs Kassa's API root. One product, a checkout that sends the
// customer to Kassa's payment page, a return page, a webhook receiver that verifies Kassa's
// Standard Webhooks signature (the library has no verifier: a few lines of hash_hmac below), and a
// refund button. Run with PHP's built-in server, this file as the router:
//
//   composer require ccv/php-lib:2.0.0   # once: CCV's library (github.com/CCV/ccvonlinepayments-php-lib) in vendor/
//   KASSA_API_ROOT=http://localhost:8080/ KASSA_API_KEY=test_… KASSA_WEBHOOK_SECRET=whsec_… \
//   php -S 127.0.0.1:3001 index.php
//
// CCV_PHP_CLIENT names another copy's autoload.php instead of vendor/autoload.php.
// SHOP_URL is where Kassa and the customer's browser reach this shop (default http://127.0.0.1:3001);
// ORDERS_FILE where the orders are kept between requests (default in the system's temporary directory).
declare(strict_types=1);

require getenv('CCV_PHP_CLIENT') ?: __DIR__ . '/vendor/autoload.php';

use CCVOnlinePayments\Lib\CcvOnlinePaymentsApi;
use CCVOnlinePayments\Lib\Enum\TransactionType;
use CCVOnlinePayments\Lib\Exception\ApiException;
use CCVOnlinePayments\Lib\PaymentRequest;
use CCVOnlinePayments\Lib\RefundRequest;

/** The library caches the method list; a shop would use its framework's cache. */
final class NoCache extends CCVOnlinePayments\Lib\Cache {
    public function set(string $key, string $value, int $timeout): void {}
    public function get(string $key): ?string { return null; }
}

$shopUrl = getenv('SHOP_URL') ?: 'http://127.0.0.1:3001';
$ordersFile = getenv('ORDERS_FILE') ?: sys_get_temp_dir() . '/kassa-php-shop-orders.json';
$kassa = new CcvOnlinePaymentsApi(new NoCache(), new Psr\Log\NullLogger(), (string) getenv('KASSA_API_KEY'));
$kassa->setApiRoot(getenv('KASSA_API_ROOT') ?: 'http://localhost:8080/');

function loadOrders(string $file): array { return is_file($file) ? json_decode((string) file_get_contents($file), true) : []; }
function saveOrders(string $file, array $orders): void { file_put_contents($file, json_encode($orders), LOCK_EX); }
function page(string $title, string $body): string {
    return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>$title</title></head><body><h1>$title</h1>$body</body></html>";
}
function h(?string $text): string { return htmlspecialchars((string) $text, ENT_QUOTES); }

/** Standard Webhooks (docs/webhooks.md): HMAC-SHA256 of "id.timestamp.body" with the secret's base64 key, within 5 minutes. */
function verifiedWebhookId(string $secret, string $body): ?string {
    $id = $_SERVER['HTTP_WEBHOOK_ID'] ?? '';
    $timestamp = $_SERVER['HTTP_WEBHOOK_TIMESTAMP'] ?? '';
    if ($id === '' || !ctype_digit($timestamp) || abs(time() - (int) $timestamp) > 300) return null;
    $key = base64_decode(str_starts_with($secret, 'whsec_') ? substr($secret, 6) : $secret, true);
    $expected = base64_encode(hash_hmac('sha256', "$id.$timestamp.$body", (string) $key, true));
    foreach (explode(' ', $_SERVER['HTTP_WEBHOOK_SIGNATURE'] ?? '') as $signature) {
        if (hash_equals("v1,$expected", $signature)) return json_decode($body, true)['id'] ?? null;
    }
    return null;
}

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$method = $_SERVER['REQUEST_METHOD'];
$orders = loadOrders($ordersFile);

try {
    if ($method === 'GET' && $path === '/') {
        echo page('The PHP Mug Shop', '<p>One coffee mug, EUR 12.50.</p><form method="post" action="/checkout"><button type="submit">Buy a mug</button></form>');
    } elseif ($method === 'POST' && $path === '/checkout') {
        // Create the payment, keep its reference with the order, send the customer to Kassa's page.
        // An order number never used before: it names the order's refund's Idempotency-Reference too.
        $id = bin2hex(random_bytes(6));
        $request = new PaymentRequest();
        $request->setAmount(12.50);
        $request->setCurrency('eur');
        $request->setMethod('card');
        $request->setReturnUrl("$shopUrl/orders/$id");
        $request->setWebhookUrl("$shopUrl/webhook");
        $request->setMerchantOrderReference("order-$id");
        $request->setDescription('One coffee mug');
        $request->setLanguage('eng');
        $request->setTransactionType(TransactionType::SALE);
        $payment = $kassa->createPayment($request);
        $orders[$id] = ['id' => $id, 'reference' => $payment->getReference(), 'status' => 'pending'];
        saveOrders($ordersFile, $orders);
        header('Location: ' . $payment->getPayUrl(), true, 303);
    } elseif ($method === 'POST' && $path === '/webhook') {
        // Kassa announces every outcome. Verify the signature, then read the transaction: the webhook only names it.
        $reference = verifiedWebhookId((string) getenv('KASSA_WEBHOOK_SECRET'), (string) file_get_contents('php://input'));
        if ($reference === null) {
            http_response_code(400);
            return;
        }
        $status = $kassa->getPaymentStatus($reference)->getStatus()->value;
        foreach ($orders as &$order) {
            if ($order['reference'] === $reference) $order = ['status' => $status, 'webhookVerified' => true] + $order;
            if (($order['refund']['reference'] ?? null) === $reference) $order['refund']['status'] = $status;
        }
        unset($order);
        saveOrders($ordersFile, $orders);
        http_response_code(204);
    } elseif (preg_match('#^/orders/([0-9a-f]+)(\.json|/refund)?$#', $path, $match) && isset($orders[$match[1]])) {
        $order = &$orders[$match[1]];
        $action = $match[2] ?? '';
        if ($method === 'GET' && $action === '.json') {
            header('Content-Type: application/json');
            echo json_encode($order);
        } elseif ($method === 'POST' && $action === '/refund') {
            $request = new RefundRequest();
            $request->setReference($order['reference']);
            $request->setDescription("Refund of order {$order['id']}");
            $request->setIdempotencyReference("refund-{$order['reference']}");
            $refund = $kassa->createRefund($request);
            $order['refund'] = ['reference' => $refund->getReference(), 'status' => $kassa->getPaymentStatus($refund->getReference())->getStatus()->value];
            saveOrders($ordersFile, $orders);
            header("Location: /orders/{$order['id']}", true, 303);
        } else {
            // Back from the payment page: the webhook may not have arrived yet, so ask Kassa.
            $order['status'] = $kassa->getPaymentStatus($order['reference'])->getStatus()->value;
            saveOrders($ordersFile, $orders);
            $refund = isset($order['refund']) ? '<p id="refund">Refund ' . h($order['refund']['reference']) . ': <strong>' . h($order['refund']['status']) . '</strong></p>' : '';
            $form = $order['status'] === 'success' && !isset($order['refund'])
                ? "<form method=\"post\" action=\"/orders/{$order['id']}/refund\"><button type=\"submit\">Refund this order</button></form>" : '';
            echo page("Order {$order['id']}", '<p id="status">Payment <strong>' . h($order['status']) . "</strong></p>$refund$form<p><a href=\"/\">Back to the shop</a></p>");
        }
    } else {
        http_response_code(404);
        echo 'not found';
    }
} catch (ApiException $e) {
    // The library puts Kassa's RFC 9457 problem in the message.
    error_log('Kassa refused: ' . $e->getMessage());
    http_response_code(502);
    echo 'The payment service refused: ' . h($e->getMessage());
}
