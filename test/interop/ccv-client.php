<?php
// The official CCV Online Payments PHP library, unmodified, pointed at a running Kassa
// (docs/interop.md). One call of the library per run: `php ccv-client.php <step> [json]`
// prints one JSON object; php-client.test.ts runs the steps and checks their answers. A payment
// is built as one shop plugin builds it (`shape`: woocommerce, magento, prestashop; dutch, the
// default, a plugin sending every 3-D Secure field), read from CCV's public plugin repositories
// (docs/interop.md "Methods through the shop plugins").
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
use CCVOnlinePayments\Lib\Method;
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

/**
 * The method as a plugin finds it: getMethodById() on the listed methods. A method Kassa no longer
 * lists (sofort, giropay) is still sent by a shop whose cached list predates that, so it is built
 * as the library would have listed it.
 */
function methodOf(CcvOnlinePaymentsApi $api, string $id): Method
{
    return $api->getMethodById($id) ?? new Method($id, null, null, true);
}

/** The language switch every plugin has: the shop's locale, its first part, to three letters. */
function pluginLanguage(string $locale): string
{
    return match (explode('_', $locale)[0]) {
        'nl' => 'nld',
        'de' => 'deu',
        'fr' => 'fra',
        default => 'eng',
    };
}

/** The shop's request as setBrowserFromServer() reads it. */
function browserRequest(string $acceptLanguage): void
{
    $_SERVER['HTTP_ACCEPT'] = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    $_SERVER['REMOTE_ADDR'] = '10.0.0.1';
    $_SERVER['HTTP_ACCEPT_LANGUAGE'] = $acceptLanguage;
    $_SERVER['HTTP_USER_AGENT'] = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0 Safari/537.36';
}

/**
 * A WooCommerce order as CCV/ccvonlinepayments-woocommerce 1.10.2 sends it
 * (WC_CcvOnlinePayments_Gateway::process_payment): WooCommerce keeps a line's total and tax as
 * decimal strings (a coupon already taken off the line), and the plugin adds them as floats.
 * Items: a teapot (68.99 incl. 21% VAT), three mugs of 8.95 with a 5.00 coupon, shipping 5.00, a
 * payment fee of 1.21: 97.05.
 */
function wooCommerceItems(): array
{
    return [
        ['type' => OrderLineType::PHYSICAL, 'name' => 'Teapot', 'quantity' => 1, 'total' => '57.02', 'tax' => '11.97'],
        ['type' => OrderLineType::PHYSICAL, 'name' => 'Mug', 'quantity' => 3, 'total' => '18.06', 'tax' => '3.79'],
        ['type' => OrderLineType::SHIPPING_FEE, 'name' => 'Flat rate', 'quantity' => 1, 'total' => '4.13', 'tax' => '0.87'],
        ['type' => OrderLineType::SURCHARGE, 'name' => 'Payment fee', 'quantity' => 1, 'total' => '1.00', 'tax' => '0.21'],
    ];
}

/** ccvonlinepayments_get_orderlines_by_order(), line for line. */
function wooCommerceOrderLines(): array
{
    return array_map(function (array $item): OrderLine {
        $line = new OrderLine();
        $line->setType($item['type']);
        $line->setName($item['name']);
        $line->setQuantity($item['quantity']);
        $line->setUnitPrice((floatval($item['total']) + floatval($item['tax'])) / $item['quantity']);
        $line->setTotalPrice(floatval($item['total']) + floatval($item['tax']));
        $line->setVat($item['tax']);
        return $line;
    }, wooCommerceItems());
}

function wooCommerceOrder(CcvOnlinePaymentsApi $api, array $args): PaymentRequest
{
    $api->setMetadata(['CCVOnlinePayments' => '1.10.2', 'Wordpress' => '6.6.2', 'Woocommerce' => '9.3.3']);
    browserRequest('nl-NL,nl;q=0.9,en-US;q=0.8');
    $method = methodOf($api, $args['method']);
    $request = new PaymentRequest();
    $request->setTransactionType($method->isTransactionTypeSaleSupported() ? TransactionType::SALE : TransactionType::AUTHORIZE);
    $request->setAmount($args['amount'] ?? '97.05'); // WC_Order::get_total()
    $request->setCurrency('EUR');
    $request->setMerchantOrderReference('Order 1234');
    $request->setReturnUrl('https://shop.example/?wc-api=ccvonlinepayments_return&order=1234&key=wc_order_abc&payment_id=9');
    $request->setWebhookUrl('https://shop.example/?wc-api=ccvonlinepayments_webhook&order=1234&key=wc_order_abc&payment_id=9');
    $request->setLanguage(pluginLanguage($args['locale'] ?? 'nl_NL'));
    $request->setMethod($method->getId());
    // payment_fields() posts the method's issuer key; for iDEAL it draws no bank list, so the issuer posted is empty.
    $issuerKey = $method->getIssuerKey() ?? '';
    $issuer = $args['issuer'] ?? '';
    if ($issuerKey === 'issuerid') {
        $request->setIssuer($issuer);
    } elseif ($issuerKey === 'brand') {
        $request->setBrand($issuer);
    }
    $request->setBillingAddress('Damrak 1A');
    $request->setBillingCity('Amsterdam');
    $request->setBillingPostalCode('1012 LG');
    $request->setBillingCountry('NL');
    $request->setBillingEmail('jan@example.nl');
    $request->setBillingState(null); // WooCommerce has no Dutch states: '' becomes null
    $request->setBillingPhoneNumber('020 123 4567');
    $request->setBillingFirstName('Jan');
    $request->setBillingLastName('Jansen');
    $request->setShippingAddress('Coolsingel 40');
    $request->setShippingCity('Rotterdam');
    $request->setShippingPostalCode('3011 AD');
    $request->setShippingCountry('NL');
    $request->setShippingState(null);
    $request->setShippingEmail($request->getBillingEmail()); // a WooCommerce shipping address has no e-mail
    $request->setShippingFirstName('Piet');
    $request->setShippingLastName('Jansen');
    $request->setAccountInfoAccountIdentifier('42');
    $request->setAccountInfoAccountCreationDate(DateTimeImmutable::createFromFormat('Y-m-d H:i:s', '2021-03-04 10:11:12'));
    $request->setAccountInfoEmail('jan@example.nl');
    $request->setAccountInfoHomePhoneNumber('020 123 4567');
    $request->setBrowserFromServer();
    $request->setBrowserUserAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1');
    $request->setBrowserIpAddress('203.0.113.7');
    if ($method->isOrderLinesRequired()) {
        $request->setOrderLines(wooCommerceOrderLines());
    }
    return $request;
}

/**
 * A Magento 2 order as CCV/ccvonlinepayments-magento2 1.9.1 sends it
 * (CcvOnlinePaymentsService::startTransaction): each item's row total minus its discount plus its
 * tax and the discount's tax compensation, as floats; shipping with its VAT rate divided out. A
 * German order: a teapot (68.99), three mugs of 8.95 less a 5.00 discount, shipping 5.00: 95.84.
 */
function magentoItems(): array
{
    return [
        ['name' => 'Teapot', 'qty' => 1.0, 'rowTotal' => 57.02, 'discount' => 0.0, 'tax' => 11.97, 'compensation' => 0.0, 'taxPercent' => 21.0],
        ['name' => 'Mug', 'qty' => 3.0, 'rowTotal' => 22.19, 'discount' => 5.00, 'tax' => 3.79, 'compensation' => 0.87, 'taxPercent' => 21.0],
    ];
}

/** getOrderlinesByOrder() (at checkout) or getOrderlinesByInvoice() (the capture), line for line. */
function magentoOrderLines(bool $invoice): array
{
    $lines = [];
    foreach (magentoItems() as $item) {
        $line = new OrderLine();
        $line->setType(OrderLineType::PHYSICAL);
        $line->setName($item['name']);
        $line->setQuantity(intval(round($item['qty'])));
        $line->setTotalPrice($item['rowTotal'] - $item['discount'] + $item['tax'] + $item['compensation']);
        $line->setUnit('pcs');
        $line->setUnitPrice($line->getTotalPrice() / $line->getQuantity());
        $line->setVatRate($invoice ? ($item['tax'] / $line->getTotalPrice()) * 100 : $item['taxPercent']);
        $line->setVat($item['tax']);
        $lines[] = $line;
    }
    [$shipping, $shippingTax, $shippingCompensation] = [4.13, 0.87, 0.0];
    $line = new OrderLine();
    $line->setType(OrderLineType::SHIPPING_FEE);
    $line->setName('Shipping');
    $line->setQuantity(1);
    $line->setTotalPrice($shipping + $shippingTax + $shippingCompensation);
    $line->setVat($shippingTax);
    $line->setVatRate(($shippingTax / $shipping) * 100);
    $line->setUnitPrice($shipping + $shippingTax + $shippingCompensation);
    $lines[] = $line;
    return $lines;
}

function magentoOrder(CcvOnlinePaymentsApi $api, array $args): PaymentRequest
{
    $api->setMetadata(['CCVOnlinePayments' => '1.8.0', 'Magento' => '2.4.7-p2']);
    $api->addMetadata(['Checkout' => 'onepage']);
    browserRequest('de-DE,de;q=0.9,en;q=0.5');
    $payByLink = $args['method'] === 'paybylink';
    $method = methodOf($api, $payByLink ? 'landingpage' : $args['method']);
    $request = new PaymentRequest();
    $request->setCurrency('EUR');
    $request->setAmount($args['amount'] ?? 95.84); // Order\Payment::getAmountOrdered(), a float
    if ($payByLink) {
        $request->addDetail('allowCustomerCancel', false);
        $request->addDetail('expirationDuration', 'P14D');
    }
    $request->setTransactionType($method->isTransactionTypeAuthoriseSupported() ? TransactionType::AUTHORIZE : TransactionType::SALE);
    $request->setReturnUrl('https://shop.example/de/ccvonlinepayments/checkout/paymentreturn/order_id/000000017/payment_id/17/');
    $request->setWebhookUrl('https://shop.example/de/ccvonlinepayments/checkout/webhook/order_id/000000017/payment_id/17/');
    $request->setMethod($method->getId());
    $request->setMerchantOrderReference('17'); // the order's entity id
    $request->setLanguage(pluginLanguage($args['locale'] ?? 'de_DE'));
    // The checkout's additional information: issuerKey from the method, selectedIssuer null unless a bank was picked.
    if ($method->getIssuerKey() === 'issuerid') {
        $request->setIssuer($args['issuer'] ?? null);
    } elseif ($method->getIssuerKey() === 'brand') {
        $request->setBrand($args['issuer'] ?? null);
    }
    $request->setBillingEmail('anna@example.de');
    $request->setBillingFirstName('Anna');
    $request->setBillingLastName('Schmidt');
    $request->setBillingAddress('Unter den Linden 77');
    $request->setBillingCity('Berlin');
    $request->setBillingPostalCode('10117');
    $request->setBillingCountry('DE');
    $request->setBillingState('BER'); // Magento's own region code for Berlin, not ISO 3166-2 (DE-BE)
    $request->setBillingPhoneNumber('030 1234567');
    $request->setShippingEmail('anna@example.de');
    $request->setShippingFirstName('Anna');
    $request->setShippingLastName('Schmidt');
    $request->setShippingAddress('Unter den Linden 77');
    $request->setShippingCity('Berlin');
    $request->setShippingPostalCode('10117');
    $request->setShippingCountry('DE');
    $request->setShippingState('BER');
    $request->setMerchantRiskIndicatorDeliveryEmailAddress('anna@example.de');
    $request->setAccountInfoAccountIdentifier('5');
    $request->setAccountInfoAccountCreationDate((new DateTimeImmutable())->setTimestamp(1_600_000_000));
    $request->setAccountInfoEmail('anna@example.de');
    $request->setBrowserFromServer();
    $request->setBrowserIpAddress('198.51.100.4');
    if ($method->isOrderLinesRequired()) {
        $request->setOrderLines(magentoOrderLines(false));
    }
    return $request;
}

/**
 * A PrestaShop cart as CCV/ccvonlinepayments-prestashop sends it (controllers/front/payment.php,
 * CcvOnlinePayments::getOrderlinesByCart): products at ps_round()ed prices incl. VAT, shipping,
 * and each cart rule as a DISCOUNT line of its positive value. A French cart: a teapot (68.99),
 * three mugs of 8.95, shipping 5.00: 100.84; with the 5.00 voucher (`discount`), 95.84.
 */
function prestaShopCart(bool $discount): array
{
    return [
        'products' => [
            ['name' => 'Théière', 'cart_quantity' => 1, 'price_wt' => 68.99, 'price' => 57.016529, 'total_wt' => 68.99, 'rate' => 21.0],
            ['name' => 'Tasse', 'cart_quantity' => 3, 'price_wt' => 8.95, 'price' => 7.396694, 'total_wt' => 26.85, 'rate' => 21.0],
        ],
        'shipping' => 5.0,
        'rules' => $discount ? [['name' => 'Bon de bienvenue', 'value_real' => 5.0, 'value_tax_exc' => 4.132231]] : [],
        'total' => $discount ? 95.84 : 100.84, // Cart::getOrderTotal(true, Cart::BOTH)
    ];
}

/** getOrderlinesByCart(), line for line; Tools::ps_round() is PHP's round() half up. */
function prestaShopOrderLines(array $cart): array
{
    $lines = [];
    foreach ($cart['products'] as $product) {
        $line = new OrderLine();
        $line->setType(OrderLineType::PHYSICAL);
        $line->setName($product['name']);
        $line->setQuantity($product['cart_quantity']);
        $line->setTotalPrice(round($product['total_wt'], 2));
        $line->setUnit('pcs');
        $line->setUnitPrice(round($product['price_wt'], 2));
        $line->setVatRate($product['rate']);
        $line->setVat(($product['price_wt'] - $product['price']) * $product['cart_quantity']);
        $lines[] = $line;
    }
    if ($cart['shipping'] > 0) {
        $line = new OrderLine();
        $line->setType(OrderLineType::SHIPPING_FEE);
        $line->setName('Shipping');
        $line->setQuantity(1);
        $line->setTotalPrice($cart['shipping']);
        $line->setVat(round($cart['shipping'] - $cart['shipping'], 2)); // the plugin takes the excl.-VAT cost with VAT too
        $line->setVatRate(21.0);
        $line->setUnitPrice($cart['shipping']);
        $lines[] = $line;
    }
    foreach ($cart['rules'] as $rule) {
        $vatRate = round((($rule['value_real'] / $rule['value_tax_exc']) - 1) * 100, 2);
        $value = round($rule['value_real'], 2);
        $line = new OrderLine();
        $line->setType(OrderLineType::DISCOUNT);
        $line->setName($rule['name']);
        $line->setQuantity(1);
        $line->setTotalPrice($value);
        $line->setVat($value > 0 ? round($value - ($value / (1 + ($vatRate / 100))), 2) : 0);
        $line->setVatRate($vatRate);
        $line->setUnitPrice($value);
        $lines[] = $line;
    }
    return $lines;
}

function prestaShopOrder(CcvOnlinePaymentsApi $api, array $args): PaymentRequest
{
    $api->setMetadata(['CCVOnlinePayments' => '1.4.1', 'Prestashop' => '8.1.7']);
    browserRequest('fr-FR,fr;q=0.9');
    $cart = prestaShopCart($args['discount'] ?? false);
    $method = methodOf($api, $args['method']);
    $request = new PaymentRequest();
    $request->setTransactionType($method->isTransactionTypeSaleSupported() ? TransactionType::SALE : TransactionType::AUTHORIZE);
    $request->setAmount($args['amount'] ?? $cart['total']);
    $request->setCurrency(strtoupper('eur'));
    $request->setMerchantOrderReference('XKBKNABJK'); // Order::generateReference()
    $request->setReturnUrl('https://shop.example/fr/module/ccvonlinepayments/return?cartId=31&ref=XKBKNABJK');
    $request->setWebhookUrl('https://shop.example/fr/module/ccvonlinepayments/webhook?cartId=31&ref=XKBKNABJK');
    $request->setLanguage(pluginLanguage($args['locale'] ?? 'fr'));
    $request->setMethod($method->getId());
    // Tools::getValue('issuer_ideal') with no bank list drawn: false, which PHP's loose typing in the plugin makes ''.
    if ($method->getIssuerKey() === 'issuerid') {
        $request->setIssuer($args['issuer'] ?? '');
    } elseif ($method->getIssuerKey() === 'brand') {
        $request->setBrand($args['issuer'] ?? '');
    }
    $request->setBillingAddress('12 rue de Rivoli');
    $request->setBillingCity('Paris');
    $request->setBillingPostalCode('75001');
    $request->setBillingCountry('FR');
    $request->setBillingState(null); // (new State(0))->iso_code: France has no states in PrestaShop
    $request->setBillingPhoneNumber('01 23 45 67 89');
    $request->setBillingLastName('Dupont');
    $request->setBillingFirstName('Marie');
    $request->setShippingAddress('12 rue de Rivoli');
    $request->setShippingCity('Paris');
    $request->setShippingPostalCode('75001');
    $request->setShippingCountry('FR');
    $request->setShippingState(null);
    $request->setShippingLastName('Dupont');
    $request->setShippingFirstName('Marie');
    $request->setAccountInfoAccountIdentifier('7');
    $request->setAccountInfoAccountCreationDate(DateTimeImmutable::createFromFormat('Y-m-d H:i:s', '2019-05-06 07:08:09'));
    $request->setAccountInfoAccountChangeDate(DateTimeImmutable::createFromFormat('Y-m-d H:i:s', '2024-10-01 12:00:00'));
    $request->setAccountInfoEmail('marie@example.fr');
    $request->setAccountInfoHomePhoneNumber('01 23 45 67 89');
    $request->setAccountInfoMobilePhoneNumber('06 12 34 56 78');
    $request->setBillingEmail('marie@example.fr');
    $request->setShippingEmail('marie@example.fr');
    $request->setBrowserFromServer();
    $request->setBrowserIpAddress('203.0.113.9'); // Tools::getRemoteAddr()
    if ($method->isOrderLinesRequired()) {
        $request->setOrderLines(prestaShopOrderLines($cart));
    }
    return $request;
}

/** The order a shape builds, by the shape's name. */
function orderOf(CcvOnlinePaymentsApi $api, array $args): PaymentRequest
{
    return match ($args['shape'] ?? 'dutch') {
        'dutch' => dutchOrder($args),
        'woocommerce' => wooCommerceOrder($api, $args),
        'magento' => magentoOrder($api, $args),
        'prestashop' => prestaShopOrder($api, $args),
    };
}

/** What each plugin captures when the order ships: WooCommerce and Magento with the lines, PrestaShop the amount only. */
function captureOf(array $args): CaptureRequest
{
    $request = new CaptureRequest();
    $request->setReference($args['reference']);
    $request->setAmount($args['amount'] ?? null);
    $request->setIdempotencyReference($args['idempotencyReference'] ?? null);
    match ($args['shape'] ?? null) {
        'woocommerce' => $request->setOrderLines(wooCommerceOrderLines()),
        'magento' => $request->setOrderLines(magentoOrderLines(true)),
        default => null,
    };
    return $request;
}

try {
    $result = match ($step) {
        'isKeyValid' => ['valid' => $api->isKeyValid()],
        'getMethods' => ['methods' => array_map(fn ($m) => $m->getId(), $api->getMethods())],
        'describeMethods' => [
            'methods' => array_map(fn (Method $m) => [
                'id' => $m->getId(),
                'sale' => $m->isTransactionTypeSaleSupported(),
                'authorise' => $m->isTransactionTypeAuthoriseSupported(),
                'orderLinesRequired' => $m->isOrderLinesRequired(),
                'refund' => $m->isRefundSupported(),
            ], $api->getMethods()),
            'sortedNL' => array_map(fn ($m) => $m->getId(), $api->sortMethods($api->getMethods(), 'NL')),
            'sortedBE' => array_map(fn ($m) => $m->getId(), $api->sortMethods($api->getMethods(), 'BE')),
        ],
        'createPayment' => (function () use ($api, $args) {
            $payment = $api->createPayment(orderOf($api, $args));
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
            $request->setDescription($args['description'] ?? 'Refund from the interop shop');
            $request->setIdempotencyReference($args['idempotencyReference'] ?? null);
            return ['reference' => $api->createRefund($request)->getReference()];
        })(),
        'createCapture' => (function () use ($api, $args) {
            return ['reference' => $api->createCapture(captureOf($args))->getReference()];
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
