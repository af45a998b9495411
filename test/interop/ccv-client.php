<?php
// The official CCV Online Payments PHP library, unmodified, pointed at a running Kassa
// (docs/interop.md). One call of the library per run: `php ccv-client.php <step> [json]`
// prints one JSON object; php-client.test.ts runs the steps and checks their answers.
// Environment: KASSA_API_ROOT (http://127.0.0.1:PORT/), KASSA_API_KEY, and CCV_PHP_CLIENT,
// the library's autoload.php (default: the copy on the project's build machines, as in
// test/support/php.ts; elsewhere: docs/testing.md#the-official-php-client).
declare(strict_types=1);

require getenv('CCV_PHP_CLIENT') ?: '/work/shared/clients/ccv-php/autoload.php';

use CCVOnlinePayments\Lib\CaptureRequest;
use CCVOnlinePayments\Lib\CcvOnlinePaymentsApi;
use CCVOnlinePayments\Lib\Enum\OrderLineType;
use CCVOnlinePayments\Lib\Enum\TransactionType;
use CCVOnlinePayments\Lib\Exception\ApiException;
use CCVOnlinePayments\Lib\OrderLine;
use CCVOnlinePayments\Lib\PaymentRequest;
use CCVOnlinePayments\Lib\RefundRequest;
use CCVOnlinePayments\Lib\ReversalRequest;

final class MemoryCache extends CCVOnlinePayments\Lib\Cache {
    private array $values = [];
    public function set(string $key, string $value, int $timeout): void { $this->values[$key] = $value; }
    public function get(string $key): ?string { return $this->values[$key] ?? null; }
}

$step = $argv[1] ?? '';
$args = json_decode($argv[2] ?? '{}', true, 512, JSON_THROW_ON_ERROR);
$api = new CcvOnlinePaymentsApi(new MemoryCache(), new Psr\Log\NullLogger(), $args['key'] ?? getenv('KASSA_API_KEY'));
$api->setApiRoot(getenv('KASSA_API_ROOT'));
$api->setMetadata(['Shop' => 'Kassa interop test', 'Plugin' => '1.0.0']);

/** What a shop plugin builds for a Dutch order: full billing and shipping data, phone numbers, the browser from the shop's request. */
function dutchOrder(array $args): PaymentRequest
{
    // setBrowserFromServer() reads the shop's own request: a proxy list, the raw Accept-Language and Accept headers.
    $_SERVER['HTTP_ACCEPT'] = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8' . str_repeat(',x/y', 600);
    $_SERVER['REMOTE_ADDR'] = '203.0.113.7, 10.0.0.1';
    $_SERVER['HTTP_ACCEPT_LANGUAGE'] = 'nl-NL,nl;q=0.9,en-US;q=0.8,en;q=0.7';
    $_SERVER['HTTP_USER_AGENT'] = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

    $request = new PaymentRequest();
    $request->setAmount($args['amount']);
    $request->setCurrency('eur');
    $request->setMethod($args['method'] ?? 'card_visa');
    $request->setReturnUrl('https://shop.example/return');
    $request->setWebhookUrl('https://shop.example/webhook');
    $request->setMerchantOrderReference('order-' . bin2hex(random_bytes(4)));
    $request->setDescription('Order at the interop shop');
    $request->setLanguage('nld');
    $request->setTransactionType($args['authorise'] ?? false ? TransactionType::AUTHORIZE : TransactionType::SALE);
    $request->setScaReady('yes');
    $request->setBillingFirstName('Jan');
    $request->setBillingLastName('Jansen');
    $request->setBillingEmail('jan@example.nl');
    $request->setBillingAddress('Damrak');
    $request->setBillingHouseNumber('1');
    $request->setBillingHouseExtension('A');
    $request->setBillingPostalCode('1012 LG');
    $request->setBillingCity('Amsterdam');
    $request->setBillingState('NH');
    $request->setBillingCountry('NL');
    $request->setBillingPhoneNumber('020 123 4567');
    $request->setShippingFirstName('Piet');
    $request->setShippingLastName('Jansen');
    $request->setShippingEmail('piet@example.nl');
    $request->setShippingAddress('Coolsingel');
    $request->setShippingHouseNumber('40');
    $request->setShippingPostalCode('3011 AD');
    $request->setShippingCity('Rotterdam');
    $request->setShippingState('Zuid-Holland'); // a shop's own region name: kept, not sent to the issuer
    $request->setShippingCountry('NL');
    $request->setAccountInfoAccountIdentifier('customer-42');
    $request->setAccountInfoAccountCreationDate(new DateTimeImmutable('2020-01-02'));
    $request->setAccountInfoAccountChangeDate(new DateTimeImmutable('2024-05-06'));
    $request->setAccountInfoEmail('jan@example.nl');
    $request->setAccountInfoHomePhoneNumber('+31 20 123 4567');
    $request->setAccountInfoMobilePhoneNumber('+31 6 12345678');
    $request->setMerchantRiskIndicatorDeliveryEmailAddress('piet@example.nl');
    $request->setBrowserFromServer();

    $line = new OrderLine();
    $line->setType(OrderLineType::PHYSICAL);
    $line->setName('Coffee mug');
    $line->setCode('MUG-1');
    $line->setQuantity(2);
    $line->setUnit('piece');
    $line->setUnitPrice(5);
    $line->setTotalPrice($args['amount']);
    $line->setVatRate(21);
    $line->setVat(1.74);
    $line->setUrl('https://shop.example/mug');
    $request->setOrderLines([$line]);
    return $request;
}

try {
    $result = match ($step) {
        'isKeyValid' => ['valid' => $api->isKeyValid()],
        'getMethods' => ['methods' => array_map(fn ($m) => $m->getId(), $api->getMethods())],
        'createPayment' => (function () use ($api, $args) {
            $payment = $api->createPayment(dutchOrder($args));
            return ['reference' => $payment->getReference(), 'payUrl' => $payment->getPayUrl()];
        })(),
        'getPaymentStatus' => (function () use ($api, $args) {
            $status = $api->getPaymentStatus($args['reference']);
            return [
                'status' => $status->getStatus()->value,
                'type' => $status->getTransactionType()->value,
                'amount' => $status->getAmount(),
                'failureCode' => $status->getFailureCode()?->value,
                'details' => $status->getDetails(),
            ];
        })(),
        'createRefund' => (function () use ($api, $args) {
            $request = new RefundRequest();
            $request->setReference($args['reference']);
            $request->setAmount($args['amount'] ?? null);
            $request->setDescription('Refund from the interop shop');
            $request->setIdempotencyReference($args['idempotencyReference'] ?? null);
            return ['reference' => $api->createRefund($request)->getReference()];
        })(),
        'createCapture' => (function () use ($api, $args) {
            $request = new CaptureRequest();
            $request->setReference($args['reference']);
            $request->setAmount($args['amount'] ?? null);
            $request->setIdempotencyReference($args['idempotencyReference'] ?? null);
            return ['reference' => $api->createCapture($request)->getReference()];
        })(),
        'createReversal' => (function () use ($api, $args) {
            $request = new ReversalRequest();
            $request->setReference($args['reference']);
            $request->setIdempotencyReference($args['idempotencyReference'] ?? null);
            return ['reference' => $api->createReversal($request)->getReference()];
        })(),
        default => throw new InvalidArgumentException("unknown step $step"),
    };
} catch (ApiException $e) {
    $result = ['exception' => get_class($e), 'body' => json_decode($e->getMessage(), true)];
}
echo json_encode($result), "\n";
