CREATE TABLE "equipment_cost_inputs" (
	"equipment_id" uuid PRIMARY KEY NOT NULL,
	"pto_power_kw" double precision,
	"cost" jsonb
);
--> statement-breakpoint
CREATE TABLE "equipment_scenario_details" (
	"id" uuid PRIMARY KEY NOT NULL,
	"scenario_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"equipment_id" uuid,
	"request" jsonb NOT NULL,
	"cost_inputs" jsonb,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "equipment_scenario_shares" (
	"id" uuid PRIMARY KEY NOT NULL,
	"code_hash" text NOT NULL,
	"company_id" uuid NOT NULL,
	"scenario_id" uuid NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "equipment_scenarios" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"created_by" uuid,
	"name" text NOT NULL,
	"job_id" uuid NOT NULL,
	"normalized" boolean DEFAULT true NOT NULL,
	"boundary_ids" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "equipment_cost_inputs" ADD CONSTRAINT "equipment_cost_inputs_equipment_id_equipment_id_fk" FOREIGN KEY ("equipment_id") REFERENCES "public"."equipment"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "equipment_scenario_details" ADD CONSTRAINT "equipment_scenario_details_scenario_id_equipment_scenarios_id_fk" FOREIGN KEY ("scenario_id") REFERENCES "public"."equipment_scenarios"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "equipment_scenario_details" ADD CONSTRAINT "equipment_scenario_details_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "equipment_scenario_shares" ADD CONSTRAINT "equipment_scenario_shares_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "equipment_scenario_shares" ADD CONSTRAINT "equipment_scenario_shares_scenario_id_equipment_scenarios_id_fk" FOREIGN KEY ("scenario_id") REFERENCES "public"."equipment_scenarios"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "equipment_scenario_shares" ADD CONSTRAINT "equipment_scenario_shares_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "equipment_scenarios" ADD CONSTRAINT "equipment_scenarios_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "equipment_scenarios" ADD CONSTRAINT "equipment_scenarios_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "equipment_scenario_details_position_key" ON "equipment_scenario_details" USING btree ("scenario_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "equipment_scenario_shares_code_hash_key" ON "equipment_scenario_shares" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "equipment_scenario_shares_company_idx" ON "equipment_scenario_shares" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "equipment_scenarios_company_idx" ON "equipment_scenarios" USING btree ("company_id");