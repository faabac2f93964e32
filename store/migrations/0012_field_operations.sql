CREATE TABLE "analytics_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid,
	"company_id" uuid,
	"name" text NOT NULL,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"occurred_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "descriptors" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"object_type" text NOT NULL,
	"object_id" uuid NOT NULL,
	"name" text NOT NULL,
	"value_type" text NOT NULL,
	"value" jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "field_operation_batches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"field_op_id" uuid NOT NULL,
	"point_count" integer NOT NULL,
	"points" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "field_operations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"field_id" uuid NOT NULL,
	"boundary_id" uuid NOT NULL,
	"path_plan_id" uuid,
	"operation_type" text NOT NULL,
	"equipment_id" uuid,
	"operator_id" uuid,
	"swath_width" double precision NOT NULL,
	"status" text DEFAULT 'inProgress' NOT NULL,
	"notes" text,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"point_count" integer DEFAULT 0 NOT NULL,
	"first_point_at" timestamp with time zone,
	"last_point_at" timestamp with time zone,
	"field_area" double precision DEFAULT 0 NOT NULL,
	"covered_area" double precision DEFAULT 0 NOT NULL,
	"covered_percent" double precision DEFAULT 0 NOT NULL,
	"overlap_area" double precision DEFAULT 0 NOT NULL,
	"missed_area" double precision DEFAULT 0 NOT NULL,
	"working_distance" double precision DEFAULT 0 NOT NULL,
	"working_time" double precision DEFAULT 0 NOT NULL,
	"tracks" jsonb,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"company_id" uuid,
	"kind" text NOT NULL,
	"message" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "analytics_events" ADD CONSTRAINT "analytics_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_events" ADD CONSTRAINT "analytics_events_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "descriptors" ADD CONSTRAINT "descriptors_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_operation_batches" ADD CONSTRAINT "field_operation_batches_field_op_id_field_operations_id_fk" FOREIGN KEY ("field_op_id") REFERENCES "public"."field_operations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_operations" ADD CONSTRAINT "field_operations_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_operations" ADD CONSTRAINT "field_operations_field_id_fields_id_fk" FOREIGN KEY ("field_id") REFERENCES "public"."fields"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_operations" ADD CONSTRAINT "field_operations_boundary_id_boundaries_id_fk" FOREIGN KEY ("boundary_id") REFERENCES "public"."boundaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_operations" ADD CONSTRAINT "field_operations_path_plan_id_path_plans_id_fk" FOREIGN KEY ("path_plan_id") REFERENCES "public"."path_plans"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_operations" ADD CONSTRAINT "field_operations_equipment_id_equipment_id_fk" FOREIGN KEY ("equipment_id") REFERENCES "public"."equipment"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "field_operations" ADD CONSTRAINT "field_operations_operator_id_operators_id_fk" FOREIGN KEY ("operator_id") REFERENCES "public"."operators"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "analytics_events_created_idx" ON "analytics_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "analytics_events_name_idx" ON "analytics_events" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "descriptors_object_name_key" ON "descriptors" USING btree ("object_type","object_id",lower("name"));--> statement-breakpoint
CREATE INDEX "descriptors_company_idx" ON "descriptors" USING btree ("company_id","object_type");--> statement-breakpoint
CREATE INDEX "field_operation_batches_op_idx" ON "field_operation_batches" USING btree ("field_op_id");--> statement-breakpoint
CREATE INDEX "field_operations_company_started_idx" ON "field_operations" USING btree ("company_id","started_at");--> statement-breakpoint
CREATE INDEX "field_operations_field_idx" ON "field_operations" USING btree ("field_id");--> statement-breakpoint
CREATE INDEX "notifications_user_idx" ON "notifications" USING btree ("user_id","created_at");