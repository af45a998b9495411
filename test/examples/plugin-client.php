<?php
// The lines a patch of examples/plugins/ adds to a CCV shop plugin, run as the plugin runs them
// (docs/plugins.md): `php plugin-client.php <json>` prints one JSON object; plugins.test.ts checks it.
// Input: {"kind": "library" | "omnipay", "lines": [the added lines], "client": "$this->api" | "$api",
// "key": a Kassa API key or null}.
// - library (WooCommerce, Magento 2, PrestaShop): the plugin has just built its client with the
//   official PHP library's constructor (cache, logger, key) into `client`, a property of the
//   plugin's object or a local variable, and only that; the lines run there. Answers the client's
//   API root and, given a key, what isKeyValid() says against it.
// - omnipay: the line is the driver's ENDPOINT constant, which its requests prefix to the route
//   ('api/v1/method'); answers the constant and, given a key, the HTTP status and methods of a GET
//   of that address with the driver's Basic authorization.
// CCV_PHP_CLIENT is the library's autoload.php (test/support/php.ts).
declare(strict_types=1);

require getenv('CCV_PHP_CLIENT');

use CCVOnlinePayments\Lib\CcvOnlinePaymentsApi;

final class MemoryCache extends CCVOnlinePayments\Lib\Cache {
    private array $values = [];
    public function set(string $key, string $value, int $timeout): void { $this->values[$key] = $value; }
    public function get(string $key): ?string { return $this->values[$key] ?? null; }
}

/** The place in a plugin's method right after it built its client into `$this->api`. */
final class PluginObject {
    public ?CcvOnlinePaymentsApi $api = null;

    public function afterConstruction(CcvOnlinePaymentsApi $client, string $lines): CcvOnlinePaymentsApi {
        $this->api = $client;
        eval($lines . "\n");
        return $this->api;
    }
}

/** The place in a plugin's function right after it built its client into the local `$api` (no `$this`). */
function afterLocalConstruction(CcvOnlinePaymentsApi $api, string $lines): CcvOnlinePaymentsApi {
    eval($lines . "\n");
    return $api;
}

$input = json_decode($argv[1], true, 512, JSON_THROW_ON_ERROR);
$lines = implode("\n", $input['lines']);
$key = $input['key'] ?? null;

if ($input['kind'] === 'library') {
    $client = new CcvOnlinePaymentsApi(new MemoryCache(), new Psr\Log\NullLogger(), $key);
    $api = match ($input['client']) {
        '$this->api' => (new PluginObject())->afterConstruction($client, $lines),
        '$api' => afterLocalConstruction($client, $lines),
    };
    $answer = ['apiRoot' => (new ReflectionProperty(CcvOnlinePaymentsApi::class, 'apiRoot'))->getValue($api)];
    if ($key !== null) $answer['valid'] = $api->isKeyValid();
} else {
    eval("final class DriverRequest {\n" . $lines . "\n}");
    $url = sprintf('%s%s', DriverRequest::ENDPOINT, 'api/v1/method');
    $answer = ['endpoint' => DriverRequest::ENDPOINT, 'url' => $url];
    if ($key !== null) {
        $curl = curl_init($url);
        curl_setopt_array($curl, [
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_HTTPHEADER => ['Content-Type: application/json', 'Authorization: Basic ' . base64_encode($key . ':')],
        ]);
        $body = curl_exec($curl);
        $answer['status'] = curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        $answer['methods'] = array_column(json_decode((string) $body, true) ?: [], 'method');
    }
}
echo json_encode($answer), "\n";
