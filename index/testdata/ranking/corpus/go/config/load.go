// Package config loads settings from a YAML file and the environment.
package config

import (
	"fmt"
	"os"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Config is the service's settings.
type Config struct {
	Addr        string `yaml:"addr"`
	DatabaseURL string `yaml:"database_url"`
	Workers     int    `yaml:"workers"`
}

// Load reads the YAML file, then lets environment variables override it.
func Load(path string) (Config, error) {
	c := Config{Addr: ":8080", Workers: 4}
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return c, err
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("parsing %s: %w", path, err)
	}
	if v := os.Getenv("APP_ADDR"); v != "" {
		c.Addr = v
	}
	if v := os.Getenv("APP_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return c, fmt.Errorf("APP_WORKERS: %w", err)
		}
		c.Workers = n
	}
	return c, nil
}
